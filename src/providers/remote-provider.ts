/**
 * The frame shared by the remote (HTTP + SSE) providers: auth profiles and stats, the
 * streaming POST with profile rotation, the final message, and classified failures
 * (keys scrubbed). A subclass supplies only what differs per API: its endpoint, auth
 * headers and request body, and how its SSE events map onto provider events.
 *
 * An overloaded service (Anthropic 529, OpenAI 503 "overloaded") is busy for every key,
 * so it is not a reason to rotate keys or to fall back at once: the same request is
 * retried after a growing pause (the server's Retry-After when given), as long as
 * nothing of the reply has been streamed yet.
 */
import type { AnthropicProviderConfig, OpenAIProviderConfig } from "../config/index.ts";
import type { ClawboxError } from "../errors/index.ts";
import type { StopReason } from "../messages/index.ts";
import { collectSecrets, type Logger } from "../system/index.ts";
import { AssistantMessageBuilder } from "./assistant-message-builder.ts";
import { type AuthProfile, AuthProfiles } from "./auth-profiles.ts";
import { classifyThrown } from "./classify-error.ts";
import { failedTurnEvent } from "./failed-turn.ts";
import type { Provider, ProviderEvent, ProviderRequest, ProviderStats } from "./provider.ts";
import { ProviderCounters } from "./provider-counters.ts";
import { openRemoteStream, type RemoteStream } from "./remote-stream.ts";
import type { SseEvent } from "./sse-reader.ts";

export interface RemoteProviderDeps {
  logger?: Logger;
  fetch?: typeof fetch;
  now?: () => number;
  /** Waits between overload retries (tests record the pauses instead of sleeping). */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
}

/** Pauses before the 1st, 2nd, ... retry of an overloaded request (plus up to 20% jitter). */
export const OVERLOAD_BACKOFF_MS = [2_000, 6_000, 15_000];
const MAX_OVERLOAD_WAIT_MS = 60_000;
const DEFAULT_OVERLOAD_RETRIES = 2;

type RemoteConfig = AnthropicProviderConfig | OpenAIProviderConfig;

export abstract class RemoteProvider<Config extends RemoteConfig> implements Provider {
  abstract readonly kind: Config["kind"];
  readonly model: string;
  protected readonly profiles: AuthProfiles;
  /**
   * Every secret of this provider's configuration: its keys and every custom header
   * value (`collectSecrets`, the rule `config show` and the logger use). Scrubbed from
   * each failure's text here, where a provider failure becomes a message, so no log
   * line, stored turn or client answer can quote them.
   */
  protected readonly secrets: string[];
  private readonly counters = new ProviderCounters();

  constructor(
    readonly id: string,
    protected readonly config: Config,
    private readonly deps: RemoteProviderDeps = {},
  ) {
    this.model = config.model;
    this.profiles = new AuthProfiles(config.authProfiles, deps.now);
    this.secrets = [...new Set([...this.profiles.secrets(), ...collectSecrets(config)])].sort(
      (a, b) => b.length - a.length,
    );
  }

  /** API name recorded on messages, e.g. "openai-completions". */
  protected abstract readonly api: string;
  protected abstract endpoint(): string;
  protected abstract authHeaders(profile: AuthProfile): Record<string, string>;
  protected abstract body(request: ProviderRequest): unknown;
  /**
   * Maps the API's SSE events onto provider events (recording them in `builder`) and
   * returns the stop reason; throws a ClawboxError for a malformed or cut-off stream.
   */
  protected abstract readReply(
    events: AsyncIterable<SseEvent>,
    builder: AssistantMessageBuilder,
    request: ProviderRequest,
  ): AsyncGenerator<ProviderEvent, StopReason>;

  async contextWindow(): Promise<number> {
    return this.config.contextWindow;
  }

  state(): "ready" {
    return "ready";
  }

  stats(): ProviderStats {
    return this.counters.snapshot({ authProfiles: this.profiles.status() });
  }

  async *stream(request: ProviderRequest): AsyncGenerator<ProviderEvent> {
    const started = Date.now();
    yield { type: "start", model: this.model };
    for (let attempt = 0; ; attempt++) {
      const builder = new AssistantMessageBuilder(this.id, this.model, this.api, this.config.cost);
      let remote: RemoteStream | undefined;
      try {
        remote = await openRemoteStream({
          provider: this.id,
          url: this.endpoint(),
          body: this.body(request),
          headers: (profile) => ({ ...this.config.headers, ...this.authHeaders(profile) }),
          profiles: this.profiles,
          secrets: this.secrets,
          timeoutMs: this.config.timeoutMs,
          fetch: this.deps.fetch ?? fetch,
          okBodyError: (body, secrets) => this.okBodyError(body, secrets),
          ...(request.signal ? { signal: request.signal } : {}),
          ...(this.deps.logger ? { logger: this.deps.logger } : {}),
          ...(this.deps.now ? { now: this.deps.now } : {}),
        });
        const stopReason = yield* this.readReply(remote.events, builder, request);
        const message = builder.build(stopReason);
        this.counters.succeeded(message.usage, stopReason, started);
        yield { type: "done", message };
        return;
      } catch (thrown) {
        const error = classifyThrown(thrown, {
          provider: this.id,
          secrets: this.secrets,
          aborted: request.signal?.aborted === true,
        });
        const wait = this.overloadWait(error, attempt, builder);
        if (wait !== undefined) {
          this.deps.logger?.warn("service overloaded: retrying the same request", {
            provider: this.id,
            attempt: attempt + 1,
            waitMs: wait,
          });
          remote?.close();
          remote = undefined;
          await (this.deps.sleep ?? abortableSleep)(wait, request.signal);
          if (!request.signal?.aborted) continue;
        }
        yield failedTurnEvent({
          provider: this.id,
          what: `${this.kind} request failed`,
          error,
          builder,
          counters: this.counters,
          startedAt: started,
          ...(this.deps.logger ? { logger: this.deps.logger } : {}),
        });
        return;
      } finally {
        remote?.close();
      }
    }
  }

  /**
   * A JSON error body some APIs send with HTTP 200 instead of an event stream; the
   * default recognizes none (subclasses for such APIs override it).
   */
  protected okBodyError(_body: string, _secrets: string[]): ClawboxError | undefined {
    return undefined;
  }

  /** Milliseconds to wait before retrying an overloaded request, or undefined to give up. */
  private overloadWait(
    error: ClawboxError,
    attempt: number,
    builder: AssistantMessageBuilder,
  ): number | undefined {
    if (error.code !== "PROVIDER_OVERLOADED" || !builder.isEmpty()) return undefined;
    const retries = this.config.overloadRetries ?? DEFAULT_OVERLOAD_RETRIES;
    if (attempt >= retries) return undefined;
    const asked = error.details?.retryAfterMs;
    const base = OVERLOAD_BACKOFF_MS[Math.min(attempt, OVERLOAD_BACKOFF_MS.length - 1)] ?? 2_000;
    const wait = typeof asked === "number" ? asked : base * (1 + Math.random() * 0.2);
    return Math.min(Math.round(wait), MAX_OVERLOAD_WAIT_MS);
  }
}

function abortableSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    }
    signal?.addEventListener("abort", done, { once: true });
  });
}
