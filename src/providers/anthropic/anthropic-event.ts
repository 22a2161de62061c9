/** Shapes of Anthropic Messages stream events, validated leniently (new fields are ignored). */
import { z } from "../../schema/index.ts";

const usage = z.nullish(
  z.object({
    input_tokens: z.nullish(z.number()),
    output_tokens: z.nullish(z.number()),
    cache_creation_input_tokens: z.nullish(z.number()),
    cache_read_input_tokens: z.nullish(z.number()),
  }),
);

export const anthropicEvent = z.discriminatedUnion("type", [
  z.object({ type: z.literal("message_start"), message: z.object({ usage }) }),
  z.object({
    type: z.literal("content_block_start"),
    index: z.number(),
    content_block: z.object({
      type: z.string(),
      id: z.optional(z.string()),
      name: z.optional(z.string()),
      /** `redacted_thinking` blocks carry their encrypted reasoning here, whole. */
      data: z.optional(z.string()),
    }),
  }),
  z.object({
    type: z.literal("content_block_delta"),
    index: z.number(),
    delta: z.object({
      type: z.string(),
      text: z.optional(z.string()),
      thinking: z.optional(z.string()),
      signature: z.optional(z.string()),
      partial_json: z.optional(z.string()),
    }),
  }),
  z.object({ type: z.literal("content_block_stop"), index: z.number() }),
  z.object({
    type: z.literal("message_delta"),
    delta: z.object({ stop_reason: z.nullish(z.string()) }),
    usage,
  }),
  z.object({ type: z.literal("message_stop") }),
  z.object({ type: z.literal("ping") }),
  z.object({
    type: z.literal("error"),
    error: z.object({ type: z.string(), message: z.string() }),
  }),
]);

export type AnthropicEvent = z.infer<typeof anthropicEvent>;
