/**
 * When the fallback chain may hand a turn (with the whole private context) to the next
 * model. Moving to a local model is always fine. Moving to a cloud model happens only
 * after a transient or capacity error (rate limit, overload, timeout, network, quota, a
 * window too small, a local model that cannot load or crashed), never after a refused
 * key, a malformed answer or a bug, and never when `models.localOnly` is set.
 */
import type { ModelsConfig } from "../config/index.ts";
import type { ClawboxError, ErrorCode } from "../errors/index.ts";
import type { Provider } from "../providers/index.ts";

const TRANSIENT_OR_CAPACITY: ReadonlySet<ErrorCode> = new Set<ErrorCode>([
  "PROVIDER_RATE_LIMIT",
  "PROVIDER_OVERLOADED",
  "PROVIDER_TIMEOUT",
  "PROVIDER_NETWORK",
  "PROVIDER_BILLING",
  "CONTEXT_OVERFLOW",
  "MODEL_NOT_FOUND",
  "MODEL_LOAD_FAILED",
  "MODEL_CRASHED",
]);

export const isCloud = (provider: Provider) => provider.kind !== "local";

/** Undefined when `provider` may take the turn; otherwise why not (for the log). */
export function fallbackRefusal(
  provider: Provider,
  previous: ClawboxError | undefined,
  models: Pick<ModelsConfig, "localOnly">,
): string | undefined {
  if (!isCloud(provider)) return undefined;
  if (models.localOnly)
    return `models.localOnly is set: the cloud model ${provider.id} is never called`;
  if (previous && !TRANSIENT_OR_CAPACITY.has(previous.code))
    return `${previous.code} is not a transient or capacity error: the private context is not sent to the cloud model ${provider.id}`;
  return undefined;
}
