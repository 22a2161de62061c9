/**
 * Opens a streaming POST to a remote model API with auth-profile rotation: a 401/403
 * or 429 cools the profile down and the same request tries the next one; any other
 * failure is classified and thrown (an overloaded service too: every key would get the
 * same answer, so no key is cooled down). Some APIs (MiniMax) answer errors with HTTP
 * 200 and a JSON body instead of an event stream: `okBodyError` classifies those, and an
 * auth or rate-limit one rotates like its HTTP twin. The returned event stream
 * classifies failures that happen mid-stream (timeout, dropped connection) the same way.
 */
import { ClawboxError } from "../errors/index.ts";
import type { Logger } from "../system/index.ts";
import { type AuthProfile, type AuthProfiles, retryAfterFromHeaders } from "./auth-profiles.ts";
import { classifyHttpError, classifyThrown, scrub } from "./classify-error.ts";
import { IdleWatchdog } from "./idle-watchdog.ts";
import { readSse, type SseEvent } from "./sse-reader.ts";

export interface RemoteStreamOptions {
  provider: string;
  url: string;
  body: unknown;
  headers: (profile: AuthProfile) => Record<string, string>;
  profiles: AuthProfiles;
  /** Hidden in every failure's text: the provider's keys and custom header values. */
  secrets: string[];
  timeoutMs: number;
  signal?: AbortSignal;
  fetch: typeof fetch;
  logger?: Logger;
  now?: () => number;
  /**
   * Classifies an HTTP 200 JSON body (no event stream) as an error, or returns undefined
   * when the body is not an error the API is known to send that way.
   */
  okBodyError?: (body: string, secrets: string[]) => ClawboxError | undefined;
}

export interface RemoteStream {
  profileId: string;
  events: AsyncGenerator<SseEvent>;
  /** Stops the timer and cancels the request if it is still open. */
  close(): void;
}

export async function openRemoteStream(options: RemoteStreamOptions): Promise<RemoteStream> {
  const { provider, profiles, secrets } = options;
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
    const isJson = /application\/json/i.test(response.headers.get("content-type") ?? "");
    if (response.ok && response.body && !isJson) {
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
    const retryAfterMs = retryAfterFromHeaders(response.headers, options.now?.());
    const error = response.ok
      ? okBodyFailure(text, options, secrets)
      : classifyHttpError(response.status, text, {
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

/** An HTTP 200 whose body is JSON, not the requested event stream. */
function okBodyFailure(
  text: string,
  options: RemoteStreamOptions,
  secrets: string[],
): ClawboxError {
  return (
    options.okBodyError?.(text, secrets) ??
    new ClawboxError(
      "PROVIDER_BAD_RESPONSE",
      `${options.provider}: expected an event stream, got a JSON body: ${scrub(text.slice(0, 200), secrets)}`,
    )
  );
}

/**
 * Every profile is cooling down. When a refused key is among them this is PROVIDER_AUTH
 * (not transient: the fallback policy keeps the private context away from the cloud);
 * only rate limits alone make it PROVIDER_RATE_LIMIT.
 */
function allCoolingDown(options: RemoteStreamOptions): ClawboxError {
  const readyAt = options.profiles.nextReadyAt();
  const waitMs =
    readyAt !== undefined ? Math.max(0, readyAt - (options.now?.() ?? Date.now())) : undefined;
  const refused = options.profiles.refusedKeyCooling();
  return new ClawboxError(
    refused ? "PROVIDER_AUTH" : "PROVIDER_RATE_LIMIT",
    `${options.provider}: every auth profile is cooling down${refused ? " (a key was refused)" : ""}`,
    {
      hint: refused
        ? "check the API key (it was refused); fix it and restart, or add another key"
        : waitMs !== undefined
          ? `next one is usable in ${Math.ceil(waitMs / 1000)} s`
          : "add another API key",
      details: {
        provider: options.provider,
        ...(waitMs !== undefined ? { retryAfterMs: waitMs } : {}),
      },
    },
  );
}
