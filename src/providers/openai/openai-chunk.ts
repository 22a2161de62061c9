/** Shape of one streamed chat-completions chunk, validated leniently (providers add fields). */
import * as z from "zod";

const toolCallDelta = z.object({
  index: z.number().int().optional(),
  id: z.string().nullish(),
  function: z.object({ name: z.string().nullish(), arguments: z.string().nullish() }).nullish(),
});

export const openaiChunk = z.object({
  choices: z
    .array(
      z.object({
        delta: z
          .object({
            content: z.string().nullish(),
            reasoning_content: z.string().nullish(),
            reasoning: z.string().nullish(),
            tool_calls: z.array(toolCallDelta).nullish(),
          })
          .nullish(),
        finish_reason: z.string().nullish(),
      }),
    )
    .nullish(),
  usage: z
    .object({
      prompt_tokens: z.number().nullish(),
      completion_tokens: z.number().nullish(),
      prompt_tokens_details: z.object({ cached_tokens: z.number().nullish() }).nullish(),
    })
    .nullish(),
  /** MiniMax: errors come as `base_resp` with a non-zero status code, even with HTTP 200. */
  base_resp: z
    .object({ status_code: z.number().nullish(), status_msg: z.string().nullish() })
    .nullish(),
  error: z
    .object({
      message: z.string().nullish(),
      type: z.string().nullish(),
      code: z.union([z.string(), z.number()]).nullish(),
    })
    .nullish(),
});

export type OpenAIChunk = z.infer<typeof openaiChunk>;
