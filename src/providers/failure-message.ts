/**
 * Plain-words text shown to a user when a turn fails, one per failure class. It never
 * includes provider details or keys: those go to the log.
 */
import type { ClawboxError, ErrorCode } from "../errors/index.ts";

const NO_MODEL =
  "No local model is installed yet. The owner can pull one on the web console's Models page, or run:";
const MISSING_FILE =
  "The local model file is missing: the model settings name a file that is not there. The owner can choose an installed model on the web console's Models page, or run: clawbox models use NAME";

const MESSAGES: Partial<Record<ErrorCode, string>> = {
  PROVIDER_AUTH:
    "The AI service did not accept its access key. The owner needs to check the API key settings.",
  PROVIDER_RATE_LIMIT:
    "The AI service is busy right now (too many requests). Please try again in a minute.",
  PROVIDER_OVERLOADED:
    "The AI service is overloaded right now (busy for everyone). Please try again in a few minutes.",
  PROVIDER_BILLING:
    "The AI service account has run out of credit or quota. The owner needs to top it up.",
  CONTEXT_OVERFLOW:
    "This conversation got too long for the model. Start a new one or use /compact.",
  PROVIDER_TIMEOUT: "The AI service took too long to answer. Please try again.",
  PROVIDER_NETWORK: "Could not reach the AI service. Check the internet connection and try again.",
  PROVIDER_BAD_RESPONSE:
    "The AI service sent a reply that could not be understood. Please try again.",
  MODEL_CRASHED: "The local model stopped unexpectedly. It has been reset; please try again.",
  MODEL_NOT_FOUND: `${NO_MODEL} clawbox models pull --recommended`,
  MODEL_INVALID: "The local model file is damaged or unsupported. The owner needs to replace it.",
  MODEL_LOAD_FAILED: "The local model could not be loaded (maybe not enough memory).",
  ABORTED: "Stopped.",
  AGENT_BUSY: "The box is busy answering other people right now. Please try again in a minute.",
};

/** Why a model ended its reply early (`details.stopReason` of PROVIDER_STOPPED). */
const STOPPED: Record<string, string> = {
  content_filter: "The AI service's content filter stopped this reply.",
  refusal: "The model declined to answer this request.",
  pause_turn:
    "The AI service paused this reply before it was finished. Send your message again to continue.",
};

/** One short sentence for the user about `error`. */
export function failureMessage(error: {
  code: ErrorCode;
  details?: ClawboxError["details"];
}): string {
  if (error.code === "CONTEXT_OVERFLOW" && error.details?.messageTooLong === true) {
    const { messageTokens, limitTokens, contextWindow } = error.details;
    return `Your message is too long for this model: about ${messageTokens} tokens, but at most ${limitTokens} fit in its ${contextWindow}-token window. Shorten it or send it in parts.`;
  }
  if (error.code === "MODEL_NOT_FOUND" && error.details?.missingFile === true) return MISSING_FILE;
  if (error.code === "MODEL_NOT_FOUND" && typeof error.details?.pullCommand === "string") {
    return `${NO_MODEL} ${error.details.pullCommand}`;
  }
  if (error.code === "PROVIDER_STOPPED") {
    const reason = error.details?.stopReason;
    return (
      (typeof reason === "string" ? STOPPED[reason] : undefined) ??
      "The model stopped before finishing its reply."
    );
  }
  return MESSAGES[error.code] ?? "Something went wrong while answering. Please try again.";
}
