/**
 * A `/v1/chat/completions` body for a local model id (e.g. `local`): the box is then a
 * plain model server, as Home Assistant's `llama_cpp` integration expects (HA's
 * `homeassistant/components/llama_cpp/entity.py`, ../shared/HOME-ASSISTANT-PROTOCOLS.md
 * §2). Everything the model sees comes from the request: the client's system messages
 * become the system prompt, its messages (tool calls and tool results included) the
 * history, its `tools` the only tools. `max_tokens`, `temperature` and `stop` are passed
 * on. Nothing of the box (agent, tools, memory, files, sessions) is read here.
 */
import { ClawboxError, errorMessage } from "../../errors/index.ts";
import type { AssistantMessage, Message, ToolCall } from "../../messages/index.ts";
import type { ToolDefinition } from "../../providers/index.ts";
import { z } from "../../schema/index.ts";

const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;
const MAX_TOOLS = 128;
const MAX_STOPS = 4;

const textPart = z.looseObject({ type: z.string(), text: z.optional(z.string()) });
const toolCallShape = z.looseObject({
  id: z.string().check(z.minLength(1), z.maxLength(200)),
  type: z.optional(z.string()),
  function: z.looseObject({ name: z.string(), arguments: z.optional(z.nullable(z.string())) }),
});
const messageShape = z.looseObject({
  role: z.enum(["system", "developer", "user", "assistant", "tool"]),
  content: z.optional(z.nullable(z.union([z.string(), z.array(textPart)]))),
  tool_calls: z.optional(z.nullable(z.array(toolCallShape))),
  tool_call_id: z.optional(z.nullable(z.string())),
});
const toolShape = z.looseObject({
  type: z.literal("function"),
  function: z.looseObject({
    name: z.string(),
    description: z.optional(z.nullable(z.string())),
    parameters: z.optional(z.nullable(z.record(z.string(), z.unknown()))),
  }),
});
const bodyShape = z.looseObject({
  model: z.string(),
  messages: z.array(messageShape).check(z.minLength(1)),
  tools: z.optional(z.nullable(z.array(toolShape).check(z.maxLength(MAX_TOOLS)))),
  max_tokens: z.optional(z.nullable(z.number().check(z.int(), z.minimum(1)))),
  max_completion_tokens: z.optional(z.nullable(z.number().check(z.int(), z.minimum(1)))),
  temperature: z.optional(z.nullable(z.number().check(z.minimum(0), z.maximum(2)))),
  stop: z.optional(
    z.nullable(z.union([z.string(), z.array(z.string()).check(z.maxLength(MAX_STOPS))])),
  ),
  tool_choice: z.optional(z.nullable(z.enum(["auto", "none", "required"]))),
  stream: z.optional(z.nullable(z.boolean())),
  stream_options: z.optional(
    z.nullable(z.looseObject({ include_usage: z.optional(z.nullable(z.boolean())) })),
  ),
  user: z.optional(z.nullable(z.string().check(z.maxLength(200)))),
});

export interface PlainModelRequest {
  model: string;
  systemPrompt: string;
  messages: Message[];
  /** The offered tools (none for `tool_choice: "none"`). */
  tools: ToolDefinition[];
  /** `tool_choice: "required"`: the reply must be a call. */
  toolChoice: "auto" | "required";
  maxTokens?: number;
  temperature?: number;
  stop: string[];
  stream: boolean;
  includeUsage: boolean;
  /** Names the whole conversation as sent (the key of this request's reply: `replyKey`). */
  history: string;
}

/**
 * The box's own earlier replies, by what a client sends back for them: a reply resent
 * as it was generated is the same message (its timestamp included), so the local
 * provider finds its generated tokens and the KV prefix matches byte for byte.
 */
export interface EarlierReplies {
  find(key: string): AssistantMessage | undefined;
}

/** Arguments as one JSON spelling, whatever spacing the client wrote them with. */
function sameSpelling(args: string): string {
  try {
    return JSON.stringify(JSON.parse(args));
  } catch {
    return args;
  }
}

/**
 * A reply as a client resends it: the conversation before it (`history`) and its
 * content (text, then tool calls). Two empty replies (cut by `max_tokens`) at different
 * places are different replies.
 */
export function replyKey(
  history: string,
  text: string,
  calls: { id: string; name: string; arguments: string }[],
): string {
  return JSON.stringify([
    history,
    text,
    calls.map((c) => [c.id, c.name, sameSpelling(c.arguments)]),
  ]);
}

const digest = (text: string) => new Bun.CryptoHasher("sha256").update(text).digest("hex");

const textOf = (content: z.infer<typeof messageShape>["content"]): string =>
  typeof content === "string"
    ? content
    : (content ?? []).map((part) => (part.type === "text" ? (part.text ?? "") : "")).join("");

function parseArguments(raw: string | null | undefined, where: string): Record<string, unknown> {
  if (!raw) return {};
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    throw new ClawboxError("HTTP_BAD_REQUEST", `${where}.function.arguments: not valid JSON`);
  }
  if (!value || typeof value !== "object" || Array.isArray(value))
    throw new ClawboxError(
      "HTTP_BAD_REQUEST",
      `${where}.function.arguments: must be a JSON object`,
    );
  return value as Record<string, unknown>;
}

export type ReadPlainModel =
  | { ok: true; request: PlainModelRequest }
  | { ok: false; message: string };

export function readPlainModelRequest(raw: unknown, earlier: EarlierReplies): ReadPlainModel {
  const parsed = bodyShape.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return {
      ok: false,
      message: `${issue?.path.join(".") || "body"}: ${issue?.message ?? "invalid"}`,
    };
  }
  const body = parsed.data;
  const tools: ToolDefinition[] = [];
  for (const [i, tool] of (body.tools ?? []).entries()) {
    if (!TOOL_NAME.test(tool.function.name))
      return { ok: false, message: `tools.${i}.function.name: use 1-64 letters, digits, _ or -` };
    tools.push({
      name: tool.function.name,
      description: tool.function.description ?? "",
      parameters: tool.function.parameters ?? { type: "object", properties: {} },
    });
  }
  const system: string[] = [];
  const messages: Message[] = [];
  const names = new Map<string, string>();
  /** The conversation so far, as sent (system messages aside: HA rebuilds its system prompt). */
  let seen = "";
  const history = () => digest(seen);
  try {
    for (const [i, m] of body.messages.entries()) {
      const where = `messages.${i}`;
      const before = seen;
      if (m.role !== "system" && m.role !== "developer")
        seen += `${JSON.stringify([m.role, textOf(m.content), m.tool_call_id ?? null, (m.tool_calls ?? []).map((c) => [c.id, c.function.name, sameSpelling(c.function.arguments ?? "")])])}\n`;
      if (m.role === "system" || m.role === "developer") system.push(textOf(m.content));
      else if (m.role === "user")
        messages.push({ role: "user", content: textOf(m.content), timestamp: 0 });
      else if (m.role === "tool") {
        const id = m.tool_call_id ?? "";
        const name = names.get(id);
        if (!name)
          throw new ClawboxError(
            "HTTP_BAD_REQUEST",
            `${where}.tool_call_id: no earlier tool call has the id "${id.slice(0, 80)}"`,
          );
        messages.push({
          role: "toolResult",
          toolCallId: id,
          toolName: name,
          content: [{ type: "text", text: textOf(m.content) }],
          isError: false,
          timestamp: 0,
        });
      } else {
        const calls = (m.tool_calls ?? []).map((call, j) => {
          if (!TOOL_NAME.test(call.function.name))
            throw new ClawboxError(
              "HTTP_BAD_REQUEST",
              `${where}.tool_calls.${j}.function.name: use 1-64 letters, digits, _ or -`,
            );
          names.set(call.id, call.function.name);
          return {
            id: call.id,
            name: call.function.name,
            arguments: call.function.arguments ?? "",
          };
        });
        const text = textOf(m.content);
        const known = earlier.find(replyKey(digest(before), text, calls));
        if (known) {
          messages.push(known);
          continue;
        }
        const blocks: ToolCall[] = calls.map((call, j) => ({
          type: "toolCall",
          id: call.id,
          name: call.name,
          arguments: parseArguments(call.arguments, `${where}.tool_calls.${j}`),
        }));
        messages.push({
          role: "assistant",
          content: [...(text ? [{ type: "text" as const, text }] : []), ...blocks],
          provider: "client",
          model: body.model,
          usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0 },
          stopReason: blocks.length ? "toolUse" : "stop",
          timestamp: 0,
        });
      }
    }
  } catch (error) {
    return { ok: false, message: errorMessage(error) };
  }
  if (messages.length === 0)
    return { ok: false, message: "messages: need at least one user message" };
  const systemPrompt = system.join("\n");
  const stop =
    body.stop === undefined || body.stop === null
      ? []
      : typeof body.stop === "string"
        ? [body.stop]
        : body.stop;
  const maxTokens = body.max_completion_tokens ?? body.max_tokens;
  return {
    ok: true,
    request: {
      model: body.model,
      systemPrompt,
      messages,
      tools: body.tool_choice === "none" ? [] : tools,
      toolChoice: body.tool_choice === "required" && tools.length > 0 ? "required" : "auto",
      ...(maxTokens ? { maxTokens } : {}),
      ...(body.temperature !== undefined && body.temperature !== null
        ? { temperature: body.temperature }
        : {}),
      stop: stop.filter((s) => s.length > 0),
      stream: body.stream === true,
      includeUsage: body.stream_options?.include_usage === true,
      history: history(),
    },
  };
}
