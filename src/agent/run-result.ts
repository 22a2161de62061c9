/**
 * What a caller gets back from a run: the cleaned reply, or the failure in plain words
 * (the stored assistant message keeps the technical error). A run that cannot even get
 * a context engine still stores the user's message and an error turn, so nothing a user
 * said is lost.
 */
import type { ClawboxError } from "../errors/index.ts";
import { emptyUsage, messageText } from "../messages/index.ts";
import { failureMessage as plainFailureMessage } from "../providers/index.ts";
import type { SessionRow, Store } from "../store/index.ts";
import type { Logger } from "../system/index.ts";
import type { ChatRequest, ChatResult } from "./chat-request.ts";
import { cleanOutput } from "./clean-output.ts";
import type { RunLoopResult } from "./run-agent-loop.ts";

type SessionRef = Pick<SessionRow, "sessionId" | "sessionKey">;

/** The loop's outcome as the caller's result. */
export function resultOfLoop(
  loop: RunLoopResult,
  session: SessionRef,
  /** The configured primary model id (`models.primary`), named when no provider was. */
  primary: string,
  logger: Logger,
): ChatResult {
  const base = { sessionId: session.sessionId, sessionKey: session.sessionKey };
  if (loop.error) {
    // A stopped turn (Ctrl-C, Stop, a shutdown) was asked for: not a warning (in
    // `clawbox chat` it would print into the conversation after "[stopped; …]").
    (loop.error.code === "ABORTED" ? logger.debug : logger.warn).call(logger, "run failed", {
      sessionKey: session.sessionKey,
      code: loop.error.code,
      error: loop.error.message,
    });
    const plain = plainFailureMessage(loop.error);
    return {
      ...base,
      reply: plain,
      silent: false,
      message: loop.final,
      error: { code: loop.error.code, message: plain },
    };
  }
  const cleaned = cleanOutput(messageText(loop.final));
  if (!cleaned.text && !cleaned.silent && loop.final.stopReason === "length") {
    // Out of reply tokens before any words (e.g. inside a grammar-constrained tool call).
    const message = `The model ran out of reply tokens before answering (raise models.providers.${loop.provider?.id ?? primary}.maxTokens).`;
    logger.warn("empty reply: stopped at the token limit", { sessionKey: session.sessionKey });
    return {
      ...base,
      reply: message,
      silent: false,
      message: loop.final,
      error: { code: "PROVIDER_BAD_RESPONSE", message },
    };
  }
  return { ...base, reply: cleaned.text, silent: cleaned.silent, message: loop.final };
}

/** Stores the user's message and an error turn when no context engine could be had. */
export function storeTurnWithoutEngine(
  request: ChatRequest,
  session: SessionRef,
  error: ClawboxError,
  deps: { store: Store; primary: string; logger: Logger },
): ChatResult {
  const { store, primary, logger } = deps;
  logger.error("no context engine: the turn is stored with an error", { error: error.message });
  store.transcript.append(session.sessionId, {
    type: "message",
    message: { role: "user", content: request.text, timestamp: Date.now() },
  });
  const message = {
    role: "assistant" as const,
    content: [],
    provider: primary,
    model: "none",
    usage: emptyUsage(),
    stopReason: "error" as const,
    errorMessage: error.message,
    errorText: plainFailureMessage(error),
    timestamp: Date.now(),
  };
  store.transcript.append(session.sessionId, { type: "message", message });
  const plain = message.errorText;
  return {
    sessionId: session.sessionId,
    sessionKey: session.sessionKey,
    reply: plain,
    silent: false,
    message,
    error: { code: error.code, message: plain },
  };
}
