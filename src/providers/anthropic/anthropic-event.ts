/** Shapes of Anthropic Messages stream events, validated leniently (new fields are ignored). */
import * as z from "zod";

const usage = z
  .object({
    input_tokens: z.number().nullish(),
    output_tokens: z.number().nullish(),
    cache_creation_input_tokens: z.number().nullish(),
    cache_read_input_tokens: z.number().nullish(),
  })
  .nullish();

export const anthropicEvent = z.discriminatedUnion("type", [
  z.object({ type: z.literal("message_start"), message: z.object({ usage }) }),
  z.object({
    type: z.literal("content_block_start"),
    index: z.number(),
    content_block: z.object({
      type: z.string(),
      id: z.string().optional(),
      name: z.string().optional(),
      /** `redacted_thinking` blocks carry their encrypted reasoning here, whole. */
      data: z.string().optional(),
    }),
  }),
  z.object({
    type: z.literal("content_block_delta"),
    index: z.number(),
    delta: z.object({
      type: z.string(),
      text: z.string().optional(),
      thinking: z.string().optional(),
      signature: z.string().optional(),
      partial_json: z.string().optional(),
    }),
  }),
  z.object({ type: z.literal("content_block_stop"), index: z.number() }),
  z.object({
    type: z.literal("message_delta"),
    delta: z.object({ stop_reason: z.string().nullish() }),
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
