/**
 * The frame shared by the remote (HTTP + SSE) providers: auth profiles and stats, the
 * streaming POST with profile rotation, the final message, and classified failures
 * (keys scrubbed). A subclass supplies only what differs per API: its endpoint, auth
 * headers and request body, and how its SSE events map onto provider events.
 */
import type { AnthropicProviderConfig, OpenAIProviderConfig } from "../config/index.ts";
import type { StopReason } from "../messages/index.ts";
import type { Logger } from "../system/index.ts";
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
}

type RemoteConfig = AnthropicProviderConfig | OpenAIProviderConfig;

export abstract class RemoteProvider<Config extends RemoteConfig> implements Provider {
  abstract readonly kind: Config["kind"];
  readonly model: string;
  protected readonly profiles: AuthProfiles;
  private readonly counters = new ProviderCounters();

  constructor(
    readonly id: string,
    protected readonly config: Config,
    private readonly deps: RemoteProviderDeps = {},
  ) {
    this.model = config.model;
    this.profiles = new AuthProfiles(config.authProfiles, deps.now);
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
    const builder = new AssistantMessageBuilder(this.id, this.model, this.api, this.config.cost);
    yield { type: "start", model: this.model };
    let remote: RemoteStream | undefined;
    try {
      remote = await openRemoteStream({
        provider: this.id,
        url: this.endpoint(),
        body: this.body(request),
        headers: (profile) => ({ ...this.config.headers, ...this.authHeaders(profile) }),
        profiles: this.profiles,
        timeoutMs: this.config.timeoutMs,
        fetch: this.deps.fetch ?? fetch,
        ...(request.signal ? { signal: request.signal } : {}),
        ...(this.deps.logger ? { logger: this.deps.logger } : {}),
        ...(this.deps.now ? { now: this.deps.now } : {}),
      });
      const stopReason = yield* this.readReply(remote.events, builder);
      const message = builder.build(stopReason);
      this.counters.succeeded(message.usage, stopReason, started);
      yield { type: "done", message };
    } catch (thrown) {
      const error = classifyThrown(thrown, {
        provider: this.id,
        secrets: this.profiles.secrets(),
        aborted: request.signal?.aborted === true,
      });
      yield failedTurnEvent({
        provider: this.id,
        what: `${this.kind} request failed`,
        error,
        builder,
        counters: this.counters,
        startedAt: started,
        ...(this.deps.logger ? { logger: this.deps.logger } : {}),
      });
    } finally {
      remote?.close();
    }
  }
}
