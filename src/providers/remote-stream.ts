/**
 * Opens a streaming POST to a remote model API with auth-profile rotation: a 401/403
 * or 429 cools the profile down and the same request tries the next one; any other
 * failure is classified and thrown. The returned event stream classifies failures that
 * happen mid-stream (timeout, dropped connection) the same way.
 */
import { ClawboxError } from "../errors/index.ts";
import type { Logger } from "../system/index.ts";
import { type AuthProfile, type AuthProfiles, parseRetryAfter } from "./auth-profiles.ts";
import { classifyHttpError, classifyThrown } from "./classify-error.ts";
import { IdleWatchdog } from "./idle-watchdog.ts";
import { readSse, type SseEvent } from "./sse-reader.ts";

export interface RemoteStreamOptions {
  provider: string;
  url: string;
  body: unknown;
  headers: (profile: AuthProfile) => Record<string, string>;
  profiles: AuthProfiles;
  timeoutMs: number;
  signal?: AbortSignal;
  fetch: typeof fetch;
  logger?: Logger;
  now?: () => number;
}

export interface RemoteStream {
  profileId: string;
  events: AsyncGenerator<SseEvent>;
  /** Stops the timer and cancels the request if it is still open. */
  close(): void;
}

export async function openRemoteStream(options: RemoteStreamOptions): Promise<RemoteStream> {
  const { provider, profiles } = options;
  const secrets = profiles.secrets();
  const candidates = profiles.available();
  if (candidates.length === 0) throw allCoolingDown(options);
  let lastError: ClawboxError | undefined;
  for (const profile of candidates) {
    const watchdog = new IdleWatchdog(options.timeoutMs, options.signal);
    let response: Response;
    try {
      response = await options.fetch(options.url, {
        method: "POST",
        headers: { "content-type": "application/json", ...options.headers(profile) },
        body: JSON.stringify(options.body),
        signal: watchdog.signal,
      });
    } catch (error) {
      watchdog.clear();
      throw classifyFailure(error, watchdog, options, secrets);
    }
    if (response.ok && response.body) {
      return {
        profileId: profile.id,
        events: guardedEvents(response.body, watchdog, options, secrets),
        close: () => watchdog.clear(true),
      };
    }
    let text = "";
    try {
      text = await response.text();
    } catch (error) {
      watchdog.clear();
      throw classifyFailure(error, watchdog, options, secrets);
    }
    watchdog.clear();
    const retryAfterMs = parseRetryAfter(response.headers.get("retry-after"), options.now?.());
    const error = classifyHttpError(response.status, text, {
      provider,
      secrets,
      ...(retryAfterMs !== undefined ? { retryAfterMs } : {}),
    });
    if (error.code !== "PROVIDER_AUTH" && error.code !== "PROVIDER_RATE_LIMIT") throw error;
    profiles.coolDown(
      profile.id,
      error.code === "PROVIDER_AUTH" ? "auth" : "rateLimit",
      retryAfterMs,
    );
    options.logger?.warn("auth profile cooling down", {
      provider,
      profile: profile.id,
      code: error.code,
      status: response.status,
    });
    lastError = error;
  }
  throw lastError ?? allCoolingDown(options);
}

async function* guardedEvents(
  body: ReadableStream<Uint8Array>,
  watchdog: IdleWatchdog,
  options: RemoteStreamOptions,
  secrets: string[],
): AsyncGenerator<SseEvent> {
  try {
    yield* readSse(body, () => watchdog.reset());
  } catch (error) {
    throw classifyFailure(error, watchdog, options, secrets);
  } finally {
    watchdog.clear(true);
  }
}

function classifyFailure(
  error: unknown,
  watchdog: IdleWatchdog,
  options: RemoteStreamOptions,
  secrets: string[],
): ClawboxError {
  return classifyThrown(error, {
    provider: options.provider,
    secrets,
    timedOut: watchdog.timedOut,
    aborted: watchdog.callerAborted,
    timeoutMs: options.timeoutMs,
  });
}

function allCoolingDown(options: RemoteStreamOptions): ClawboxError {
  const readyAt = options.profiles.nextReadyAt();
  const waitMs =
    readyAt !== undefined ? Math.max(0, readyAt - (options.now?.() ?? Date.now())) : undefined;
  return new ClawboxError(
    "PROVIDER_RATE_LIMIT",
    `${options.provider}: every auth profile is cooling down`,
    {
      hint:
        waitMs !== undefined
          ? `next one is usable in ${Math.ceil(waitMs / 1000)} s`
          : "add another API key",
      details: {
        provider: options.provider,
        ...(waitMs !== undefined ? { retryAfterMs: waitMs } : {}),
      },
    },
  );
}
