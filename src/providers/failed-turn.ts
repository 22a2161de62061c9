/**
 * How every provider ends a turn that failed: the failure is logged (code and message
 * only, never keys; a stop that was asked for at debug level), counted in the provider's stats with the usage seen so far, and
 * turned into the error event that closes the stream.
 */
import type { ClawboxError } from "../errors/index.ts";
import type { Logger } from "../system/index.ts";
import type { AssistantMessageBuilder } from "./assistant-message-builder.ts";
import type { ProviderEvent } from "./provider.ts";
import type { ProviderCounters } from "./provider-counters.ts";

export interface FailedTurn {
  provider: string;
  /** Log line, e.g. "openai request failed". */
  what: string;
  error: ClawboxError;
  builder: AssistantMessageBuilder;
  counters: ProviderCounters;
  startedAt: number;
  logger?: Logger;
}

export function failedTurnEvent(turn: FailedTurn): ProviderEvent {
  const { error, builder } = turn;
  // A stop someone asked for (Ctrl-C, Stop, a shutdown) is no failure worth a warning: in
  // `clawbox chat` that line would land in the conversation.
  const log = error.code === "ABORTED" ? turn.logger?.debug : turn.logger?.warn;
  log?.call(turn.logger, turn.what, {
    provider: turn.provider,
    code: error.code,
    error: error.message,
  });
  turn.counters.failed(error, builder.usage(), turn.startedAt);
  return builder.errorEvent(error);
}
