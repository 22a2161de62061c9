/**
 * One model call: consumes a provider stream into an AssistantMessage while emitting
 * message_start / message_update / message_end. Failures are data: a stream that
 * throws, ends without a final event, or is aborted yields a message with
 * `stopReason: "error" | "aborted"` plus a classified ClawboxError — never an exception.
 */
import { ClawboxError, toClawboxError } from "../errors/index.ts";
import { type AssistantMessage, emptyUsage } from "../messages/index.ts";
import type { Provider, ProviderRequest } from "../providers/index.ts";
import type { EmitEvent } from "./agent-events.ts";
import { createStreamCleaner } from "./stream-cleaner.ts";

export interface StreamOutcome {
  message: AssistantMessage;
  error?: ClawboxError;
}

function blankMessage(provider: Provider): AssistantMessage {
  return {
    role: "assistant",
    content: [],
    provider: provider.id,
    model: provider.model,
    usage: emptyUsage(),
    stopReason: "stop",
    timestamp: Date.now(),
  };
}

function failed(partial: AssistantMessage, error: ClawboxError): StreamOutcome {
  const aborted = error.code === "ABORTED";
  return {
    message: { ...partial, stopReason: aborted ? "aborted" : "error", errorMessage: error.message },
    error,
  };
}

export async function streamAssistant(
  provider: Provider,
  request: ProviderRequest,
  emit: EmitEvent,
): Promise<StreamOutcome> {
  const partial = blankMessage(provider);
  const cleaner = createStreamCleaner();
  emit({ type: "message_start", message: partial });
  let outcome: StreamOutcome | undefined;
  try {
    for await (const event of provider.stream(request)) {
      if (event.type === "text_delta") {
        const last = partial.content.at(-1);
        if (last?.type === "text") last.text += event.delta;
        else partial.content.push({ type: "text", text: event.delta });
        const shown = cleaner.push(event.delta);
        if (shown)
          emit({
            type: "message_update",
            message: partial,
            delta: shown,
            event: { type: "text_delta", delta: shown },
          });
      } else if (event.type === "thinking_delta") {
        const last = partial.content.at(-1);
        if (last?.type === "thinking") last.thinking += event.delta;
        else partial.content.push({ type: "thinking", thinking: event.delta });
        emit({
          type: "message_update",
          message: partial,
          delta: event.delta,
          event: { type: "thinking_delta", delta: event.delta },
        });
      } else if (event.type === "toolcall") {
        partial.content.push(event.toolCall);
      } else if (event.type === "done") {
        outcome = { message: event.message };
        break;
      } else if (event.type === "error") {
        outcome = { message: event.message, error: event.error };
        if (event.message.stopReason !== "error" && event.message.stopReason !== "aborted") {
          outcome.message = {
            ...event.message,
            stopReason: "error",
            errorMessage: event.error.message,
          };
        }
        break;
      }
    }
  } catch (error) {
    const classified = request.signal?.aborted
      ? new ClawboxError("ABORTED", "request aborted", { cause: error })
      : toClawboxError(error, "MODEL_CRASHED");
    outcome = failed(partial, classified);
  }
  if (!outcome) {
    outcome = request.signal?.aborted
      ? failed(partial, new ClawboxError("ABORTED", "request aborted"))
      : failed(
          partial,
          new ClawboxError(
            "PROVIDER_BAD_RESPONSE",
            `${provider.id}: the stream ended without a final message`,
          ),
        );
  }
  if (!outcome.error && request.signal?.aborted)
    outcome = failed(outcome.message, new ClawboxError("ABORTED", "request aborted"));
  const rest = cleaner.flush();
  if (rest && !outcome.error) {
    emit({
      type: "message_update",
      message: outcome.message,
      delta: rest,
      event: { type: "text_delta", delta: rest },
    });
  }
  emit({ type: "message_end", message: outcome.message });
  return outcome;
}
