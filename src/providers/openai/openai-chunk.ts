/** Shape of one streamed chat-completions chunk, validated leniently (providers add fields). */
import { z } from "../../schema/index.ts";

const toolCallDelta = z.object({
  index: z.optional(z.number().check(z.int())),
  id: z.nullish(z.string()),
  function: z.nullish(z.object({ name: z.nullish(z.string()), arguments: z.nullish(z.string()) })),
});

export const openaiChunk = z.object({
  choices: z.nullish(
    z.array(
      z.object({
        delta: z.nullish(
          z.object({
            content: z.nullish(z.string()),
            reasoning_content: z.nullish(z.string()),
            reasoning: z.nullish(z.string()),
            /** OpenAI: the model's refusal, streamed instead of `content`. */
            refusal: z.nullish(z.string()),
            tool_calls: z.nullish(z.array(toolCallDelta)),
          }),
        ),
        finish_reason: z.nullish(z.string()),
      }),
    ),
  ),
  usage: z.nullish(
    z.object({
      prompt_tokens: z.nullish(z.number()),
      completion_tokens: z.nullish(z.number()),
      prompt_tokens_details: z.nullish(z.object({ cached_tokens: z.nullish(z.number()) })),
    }),
  ),
  /** MiniMax: errors come as `base_resp` with a non-zero status code, even with HTTP 200. */
  base_resp: z.nullish(
    z.object({ status_code: z.nullish(z.number()), status_msg: z.nullish(z.string()) }),
  ),
  error: z.nullish(
    z.object({
      message: z.nullish(z.string()),
      type: z.nullish(z.string()),
      code: z.nullish(z.union([z.string(), z.number()])),
    }),
  ),
});

export type OpenAIChunk = z.infer<typeof openaiChunk>;
