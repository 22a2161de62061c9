/**
 * Reads a prompt arriving on the text command topic. Plain text is the prompt; a JSON
 * object `{"prompt", "session", "id"}` is accepted too, so an automation can pick a
 * session and match its answer by `id`. Anything unreadable becomes a plain-words
 * reason for an `error` event, never an exception: a broker client must not be able to
 * crash the box. A `session` only names a session inside the MQTT channel (it cannot
 * reach the owner's or another channel's sessions).
 */

import { errorMessage } from "../errors/index.ts";
import { z } from "../schema/index.ts";

/** Largest accepted payload, in bytes. */
export const MAX_PROMPT_BYTES = 16 * 1024;

const promptObject = z.object({
  prompt: z.string(),
  session: z.optional(
    z.string().check(z.regex(/^[a-zA-Z0-9_-]{1,64}$/, "use 1-64 letters, digits, _ or -")),
  ),
  id: z.optional(z.union([z.string().check(z.maxLength(200)), z.number()])),
});

export type PromptPayload =
  | { ok: true; prompt: string; session?: string; id?: string }
  | { ok: false; reason: string; id?: string };

const utf8 = new TextDecoder("utf-8", { fatal: true });

export function parsePromptPayload(payload: Uint8Array): PromptPayload {
  if (payload.byteLength > MAX_PROMPT_BYTES) {
    return {
      ok: false,
      reason: `The prompt is ${payload.byteLength} bytes; the limit is ${MAX_PROMPT_BYTES} bytes (16 KB). Send a shorter prompt.`,
    };
  }
  let text: string;
  try {
    text = utf8.decode(payload);
  } catch {
    return { ok: false, reason: "The prompt is not valid UTF-8 text, so it was not read." };
  }
  const trimmed = text.trim();
  if (!trimmed.startsWith("{")) {
    if (trimmed.length === 0) return { ok: false, reason: "The prompt is empty." };
    return { ok: true, prompt: trimmed };
  }
  let raw: unknown;
  try {
    raw = JSON.parse(trimmed);
  } catch (error) {
    const detail = errorMessage(error);
    return {
      ok: false,
      reason: `The prompt starts with "{" but is not valid JSON (${detail}). Send plain text or {"prompt": "...", "session": "...", "id": "..."}.`,
    };
  }
  const parsed = promptObject.safeParse(raw);
  const id = idOf(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue?.path.join(".") || "payload";
    return {
      ok: false,
      reason: `The JSON prompt has a bad "${where}": ${issue?.message ?? "invalid"}. Expected {"prompt": "...", "session": "...", "id": "..."}.`,
      ...(id !== undefined ? { id } : {}),
    };
  }
  const prompt = parsed.data.prompt.trim();
  if (prompt.length === 0) {
    return { ok: false, reason: 'The JSON prompt has an empty "prompt".', ...(id ? { id } : {}) };
  }
  return {
    ok: true,
    prompt,
    ...(parsed.data.session ? { session: parsed.data.session } : {}),
    ...(id !== undefined ? { id } : {}),
  };
}

/** The `id` of a JSON payload, even when the rest is invalid, so errors can be matched too. */
function idOf(raw: unknown): string | undefined {
  if (!raw || typeof raw !== "object" || !("id" in raw)) return undefined;
  const id = (raw as { id: unknown }).id;
  if (typeof id === "string" && id.length <= 200) return id;
  if (typeof id === "number" && Number.isFinite(id)) return String(id);
  return undefined;
}
