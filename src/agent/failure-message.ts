/**
 * Plain words for each failure class. This is what a user in a chat sees when a run
 * fails; the technical message stays in the log and on the stored assistant message.
 */
import type { ClawboxError } from "../errors/index.ts";

export function plainFailureMessage(error: ClawboxError): string {
  switch (error.code) {
    case "PROVIDER_AUTH":
      return "I can't reach my language model: the API key was refused. Please check the key in the configuration.";
    case "PROVIDER_RATE_LIMIT":
      return "My language model is busy right now (rate limit reached). Please try again in a minute.";
    case "PROVIDER_BILLING":
      return "My cloud model account has run out of credit or has a billing problem. Please check the provider account.";
    case "CONTEXT_OVERFLOW":
      return "This conversation has grown too long for my model, even after summarizing it. Send /new to start a fresh session.";
    case "PROVIDER_TIMEOUT":
      return "My language model took too long to answer. Please try again.";
    case "PROVIDER_NETWORK":
      return "I can't reach my language model over the network. Please check the box's internet connection.";
    case "MODEL_CRASHED":
    case "MODEL_LOAD_FAILED":
    case "MODEL_NOT_FOUND":
    case "MODEL_INVALID":
      return "My local model failed to run. Please check the model file and the logs (clawbox doctor).";
    case "PROVIDER_BAD_RESPONSE":
      return "My language model sent an answer I could not read. Please try again.";
    case "ABORTED":
      return "Stopped.";
    default:
      return "Something went wrong while I was answering. Please try again; the logs have the details.";
  }
}
