/**
 * Zod schema of a stored transcript entry: the shapes of `transcript-entry.ts` and
 * `message.ts`, checked where entries come from outside (import). Unknown extra fields
 * are kept (loose objects), so a file from a newer pi/OpenClaw still round-trips;
 * wrong types of the fields clawbox reads (e.g. `content: 42`) are refused.
 */
import { z } from "../schema/index.ts";

const nonEmpty = z.string().check(z.minLength(1));
const text = z.looseObject({ type: z.literal("text"), text: z.string() });
const image = z.looseObject({
  type: z.literal("image"),
  data: z.string(),
  mimeType: nonEmpty,
});
const thinking = z.looseObject({ type: z.literal("thinking"), thinking: z.string() });
const toolCall = z.looseObject({
  type: z.literal("toolCall"),
  id: nonEmpty,
  name: nonEmpty,
  arguments: z.record(z.string(), z.unknown()),
});
const usage = z.looseObject({
  input: z.number(),
  output: z.number(),
  cacheRead: z.number(),
  cacheWrite: z.number(),
  totalTokens: z.number(),
});

const userMessage = z.looseObject({
  role: z.literal("user"),
  content: z.union([z.string(), z.array(z.discriminatedUnion("type", [text, image]))]),
  timestamp: z.number(),
});
const assistantMessage = z.looseObject({
  role: z.literal("assistant"),
  content: z.array(z.discriminatedUnion("type", [text, thinking, toolCall])),
  provider: z.string(),
  model: z.string(),
  usage,
  stopReason: z.enum(["stop", "length", "toolUse", "error", "aborted"]),
  errorMessage: z.optional(z.string()),
  errorText: z.optional(z.string()),
  timestamp: z.number(),
});
const toolResultMessage = z.looseObject({
  role: z.literal("toolResult"),
  toolCallId: nonEmpty,
  toolName: z.string(),
  content: z.array(z.discriminatedUnion("type", [text, image])),
  isError: z.boolean(),
  timestamp: z.number(),
});

export const messageSchema = z.discriminatedUnion("role", [
  userMessage,
  assistantMessage,
  toolResultMessage,
]);

const base = {
  id: nonEmpty,
  parentId: z.nullable(nonEmpty),
  timestamp: nonEmpty,
};

export const transcriptEntrySchema = z.discriminatedUnion("type", [
  z.looseObject({ type: z.literal("message"), ...base, message: messageSchema }),
  z.looseObject({
    type: z.literal("model_change"),
    ...base,
    provider: z.string(),
    modelId: z.string(),
  }),
  z.looseObject({ type: z.literal("thinking_level_change"), ...base, thinkingLevel: z.string() }),
  z.looseObject({
    type: z.literal("compaction"),
    ...base,
    summary: z.string(),
    firstKeptEntryId: nonEmpty,
    tokensBefore: z.number(),
  }),
  z.looseObject({ type: z.literal("custom"), ...base, customType: nonEmpty }),
  z.looseObject({
    type: z.enum(["branch_summary", "custom_message", "label", "session_info"]),
    ...base,
  }),
]);
