/**
 * What a `/v1/chat/completions` body means to the box. An OpenAI client sends the whole
 * conversation every time, while the box keeps its own transcript per session: only the
 * last message, which must be the user's, becomes the turn. The client's earlier
 * messages, its system prompt, its `tools` and sampling settings are not used — the box's
 * own history, prompt, tools and models are (docs/HTTP-API.md). The session is named by
 * the `X-Clawbox-Session` header or else the `user` field, as a short name.
 */
import { z } from "../../schema/index.ts";
import { isShortName } from "../../sessions/index.ts";
import { MAX_IMAGE_BASE64, MAX_IMAGES, MAX_TEXT_CHARS } from "./chat-completion-limits.ts";

/** The one model this API offers: the box's agent (its own model chain behind it). */
export const CLAWBOX_MODEL = "clawbox";
export const SESSION_HEADER = "x-clawbox-session";
const IMAGE_TYPES = new Set(["image/png", "image/jpeg", "image/webp", "image/gif"]);

const contentPart = z.looseObject({
  type: z.string(),
  text: z.optional(z.string()),
  image_url: z.optional(z.union([z.string(), z.looseObject({ url: z.string() })])),
});

const message = z.looseObject({
  role: z.string(),
  content: z.optional(z.nullable(z.union([z.string(), z.array(contentPart)]))),
});

const chatCompletionBody = z.looseObject({
  model: z.optional(z.nullable(z.string())),
  messages: z.array(message).check(z.minLength(1)),
  stream: z.optional(z.nullable(z.boolean())),
  stream_options: z.optional(
    z.nullable(z.looseObject({ include_usage: z.optional(z.nullable(z.boolean())) })),
  ),
  user: z.optional(z.nullable(z.string())),
  n: z.optional(z.nullable(z.number())),
});

export interface ImagePart {
  type: "image";
  data: string;
  mimeType: string;
}

export interface ChatCompletionTurn {
  model: string;
  text: string;
  images: ImagePart[];
  /** The session's short name; undefined: the owner's default session. */
  session: string | undefined;
  stream: boolean;
  includeUsage: boolean;
}

export type ReadTurn =
  | { ok: true; turn: ChatCompletionTurn }
  | { ok: false; kind: "bad-request" | "unknown-model"; message: string };

const bad = (message: string): ReadTurn => ({ ok: false, kind: "bad-request", message });

/** `data:image/png;base64,…` → an image; anything else → the reason it is refused. */
function imageOf(url: string, where: string): ImagePart | string {
  if (!url.startsWith("data:")) {
    return `${where}: only data: URLs are taken (data:image/png;base64,…); the box does not download images`;
  }
  const comma = url.indexOf(",");
  const header = url.slice(5, comma < 0 ? 5 : comma);
  const [mimeType = "", encoding] = header.split(";");
  if (comma < 0 || encoding !== "base64" || !IMAGE_TYPES.has(mimeType)) {
    return `${where}: a data: URL of a PNG, JPEG, WebP or GIF image in base64 is expected`;
  }
  const data = url.slice(comma + 1);
  if (data.length === 0 || data.length > MAX_IMAGE_BASE64 || !/^[A-Za-z0-9+/]+={0,2}$/.test(data)) {
    return `${where}: the image is empty, larger than ${MAX_IMAGE_BASE64} base64 characters, or not base64`;
  }
  return { type: "image", data, mimeType };
}

/** The last message's text and images, or the reason they cannot be a turn. */
function contentOf(
  content: z.infer<typeof message>["content"],
  where: string,
): { text: string; images: ImagePart[] } | string {
  if (typeof content === "string") return { text: content, images: [] };
  const texts: string[] = [];
  const images: ImagePart[] = [];
  for (const [i, part] of (content ?? []).entries()) {
    const at = `${where}.content[${i}]`;
    if (part.type === "text" && typeof part.text === "string") texts.push(part.text);
    else if (part.type === "image_url" && part.image_url !== undefined) {
      const url = typeof part.image_url === "string" ? part.image_url : part.image_url.url;
      const image = imageOf(url, `${at}.image_url`);
      if (typeof image === "string") return image;
      images.push(image);
    } else
      return `${at}: parts of type "${part.type.slice(0, 40)}" are not supported (text and image_url are)`;
  }
  if (images.length > MAX_IMAGES) return `${where}: at most ${MAX_IMAGES} images per message`;
  return { text: texts.join("\n"), images };
}

/** The session name a request gives, or the reason it is not usable. */
function sessionOf(header: string | undefined, user: string | null | undefined) {
  const [name, where] =
    header !== undefined ? [header.trim(), "the X-Clawbox-Session header"] : [user, "user"];
  if (name === undefined || name === null || name === "") return { session: undefined };
  // HTTP carries header bytes as Latin-1: a UTF-8 name arrives garbled ("kÃ©"), so say so, not that.
  if (header !== undefined && !/^[\x20-\x7e]*$/.test(name)) {
    return {
      error: `${where} must be ASCII (letters, digits, . _ @ + -, at most 64, starting with a letter or digit); it names a session of the openai-api channel`,
    };
  }
  if (!isShortName(name) || /^\.+$/.test(name)) {
    return {
      error: `${where}: "${name.slice(0, 80)}" is not a session name (letters, digits, . _ @ + -, at most 64, starting with a letter or digit); it names a session of the openai-api channel`,
    };
  }
  return { session: name };
}

/** Reads a parsed JSON body (and the session header) into the turn it asks for. */
export function readChatCompletion(raw: unknown, sessionHeader: string | undefined): ReadTurn {
  const parsed = chatCompletionBody.safeParse(raw);
  if (!parsed.success) {
    return bad(
      parsed.error.issues.map((i) => `${i.path.join(".") || "body"}: ${i.message}`).join("; "),
    );
  }
  const body = parsed.data;
  const model = body.model ?? CLAWBOX_MODEL;
  if (model !== CLAWBOX_MODEL) {
    return {
      ok: false,
      kind: "unknown-model",
      message: `The model "${model.slice(0, 80)}" does not exist on this box; use "${CLAWBOX_MODEL}" (GET /v1/models lists it)`,
    };
  }
  if (body.n !== undefined && body.n !== null && body.n !== 1)
    return bad("n: only 1 choice is made");
  const index = body.messages.length - 1;
  const last = body.messages[index];
  if (last?.role !== "user") {
    return bad(
      `messages[${index}]: the last message must be the user's (role "user", not "${String(last?.role).slice(0, 20)}"); the box runs its tools itself and keeps its own history`,
    );
  }
  const content = contentOf(last.content, `messages[${index}]`);
  if (typeof content === "string") return bad(content);
  if (content.text.trim().length === 0 && content.images.length === 0)
    return bad(`messages[${index}].content: must not be empty or only spaces`);
  if (content.text.length > MAX_TEXT_CHARS)
    return bad(`messages[${index}].content: longer than ${MAX_TEXT_CHARS} characters`);
  const named = sessionOf(sessionHeader, body.user);
  if (named.error) return bad(named.error);
  return {
    ok: true,
    turn: {
      model,
      text: content.text,
      images: content.images,
      session: named.session,
      stream: body.stream === true,
      includeUsage: body.stream_options?.include_usage === true,
    },
  };
}
