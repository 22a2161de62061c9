/**
 * A model download that fails on the network is tried again with backoff (1 s doubling
 * to 30 s); each try resumes from the `.part` file. A TLS certificate that is "not yet
 * valid" means the clock is behind (a Pi has no RTC until NTP syncs): that is retried
 * until it passes, since NTP will fix it; other network errors a bounded number of times.
 */
import { ClawboxError } from "../errors/index.ts";
import { clockHint } from "../system/index.ts";

export interface PullRetryNotice {
  error: ClawboxError;
  /** The clock hint when the certificate was not yet valid. */
  clock: string | undefined;
  /** 1 for the first retry. */
  attempt: number;
  inMs: number;
}

export interface PullRetry {
  /** Retries of network errors other than the clock (default 5). */
  attempts?: number;
  initialMs?: number;
  maxMs?: number;
  onRetry?(notice: PullRetryNotice): void;
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

export async function withPullRetry<T>(
  run: () => Promise<T>,
  retry: PullRetry,
  signal?: AbortSignal,
): Promise<T> {
  const attempts = retry.attempts ?? 5;
  const initialMs = retry.initialMs ?? 1000;
  const maxMs = retry.maxMs ?? 30_000;
  let others = 0;
  for (let attempt = 1; ; attempt++) {
    try {
      return await run();
    } catch (error) {
      if (!(error instanceof ClawboxError) || error.code !== "PROVIDER_NETWORK") throw error;
      if (signal?.aborted) throw error;
      const clock = clockHint(error);
      if (!clock && ++others > attempts) throw error;
      const inMs = Math.min(maxMs, initialMs * 2 ** Math.min(attempt - 1, 10));
      retry.onRetry?.({ error, clock, attempt, inMs });
      await sleep(inMs, signal);
    }
  }
}
