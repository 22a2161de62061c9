/**
 * The local llama.cpp provider. The model is loaded lazily on first use and kept; each
 * session keeps a KV-cache sequence (LRU-bounded) so a turn evaluates only what was
 * appended since the last one. With a KV-cache folder (`<home>/cache/kv`), the stable
 * prefix (system prompt and tool list) is evaluated once per model and context and
 * loaded by every new session, also after a restart, and a session that gave its
 * sequence away gets its state back (saved-state-reuse.ts, kv-state-cache.ts); the
 * first turn does that, never the start of the service. Requests run one at a time (a
 * small board has no spare cores). Failures end the stream as classified errors:
 * MODEL_NOT_FOUND/MODEL_INVALID (bad file, checked before llama.cpp sees it),
 * MODEL_LOAD_FAILED, CONTEXT_OVERFLOW, MODEL_CRASHED; the process never crashes for them
 * where llama.cpp lets us avoid it.
 */
import { randomUUID } from "node:crypto";
import type { LlamaContext, LlamaGrammar, LlamaModel, Token } from "node-llama-cpp";
import type { LocalProviderConfig } from "../../config/index.ts";
import { ClawboxError, errorMessage, isClawboxError } from "../../errors/index.ts";
import { missingModelHint, missingModelPullCommand } from "../../models/index.ts";
import type { Logger } from "../../system/index.ts";
import { AssistantMessageBuilder } from "../assistant-message-builder.ts";
import { failedTurnEvent } from "../failed-turn.ts";
import { localModelName } from "../model-window.ts";
import type {
  ChatTemplate,
  Provider,
  ProviderEvent,
  ProviderRequest,
  ProviderStats,
} from "../provider.ts";
import { ProviderCounters } from "../provider-counters.ts";
import { assistantKey, type PromptPiece, renderPrompt } from "./chat-prompt.ts";
import { chatTemplateOf, describeChatTemplate } from "./chat-template.ts";
import { LOCAL_CONTEXT_CAP } from "./context-cap.ts";
import { replySchema } from "./json-reply-schema.ts";
import type { KvStateCache, StateWriter } from "./kv-state-cache.ts";
import { acquireModel, loadLlama, releaseModel } from "./llama-runtime.ts";
import { runTurn } from "./local-turn.ts";
import { reuseSavedState, type SavedStateReuse } from "./saved-state-reuse.ts";
import { SessionSequences, type SessionSlot } from "./session-sequences.ts";
import { recallReplies, saveSessionState, sessionOwner } from "./session-state.ts";

const TOKEN_MEMO_LIMIT = 4096;

/** Disk for saved KV states when `kvCacheDiskMB` is unset (docs/PROVIDERS.md: sized for an SD card). */
const DEFAULT_KV_CACHE_DISK_MB = 2048;

interface Loaded {
  model: LlamaModel;
  context: LlamaContext;
  sessions: SessionSequences;
  template: ChatTemplate;
  kvCache: KvStateCache | undefined;
}

export interface LocalProviderDeps {
  logger?: Logger;
  /** `<home>/cache/kv`: where KV-cache states are saved; without it nothing is saved. */
  kvCacheDir?: string;
  /** How states reach their files (tests inject a failing one). */
  kvStateWriter?: StateWriter;
}

export class LocalProvider implements Provider {
  readonly kind = "local" as const;
  readonly model: string;
  private status: "unloaded" | "loading" | "ready" | "error" = "unloaded";
  private loadedNow: Loaded | undefined;
  private loading: Promise<Loaded> | undefined;
  private queue: Promise<void> = Promise.resolve();
  private readonly grammars = new Map<string, Promise<LlamaGrammar>>();
  private readonly tokenMemo = new Map<string, Token[]>();
  private readonly counters = new ProviderCounters();
  private lastReuse: SavedStateReuse | undefined;

  constructor(
    readonly id: string,
    private readonly config: LocalProviderConfig,
    private readonly deps: LocalProviderDeps = {},
  ) {
    this.model = localModelName(config.path);
  }

  async contextWindow(): Promise<number> {
    return (await this.ensureLoaded()).context.contextSize;
  }

  async countTokens(text: string): Promise<number | undefined> {
    return (await this.ensureLoaded()).model.tokenize(text, false).length;
  }

  async chatTemplate(): Promise<ChatTemplate | undefined> {
    return (await this.ensureLoaded()).template;
  }

  state(): "unloaded" | "loading" | "ready" | "error" {
    return this.status;
  }

  stats(): ProviderStats {
    const loaded = this.status === "ready" ? this.loadedNow : undefined;
    const kvCache = loaded?.kvCache?.stats();
    return this.counters.snapshot({
      sessions: { active: loaded?.sessions.active() ?? 0, max: this.config.sessions ?? 2 },
      ...(kvCache
        ? { kvCache: { ...kvCache, ...(this.lastReuse ? { lastRequest: this.lastReuse } : {}) } }
        : {}),
    });
  }

  async dispose(): Promise<void> {
    const loading = this.loading;
    this.loading = undefined;
    this.status = "unloaded";
    this.loadedNow = undefined;
    const loaded = await loading?.catch(() => undefined);
    if (!loaded) return;
    const release = await this.lock();
    try {
      if (loaded.kvCache) {
        // A conversation after the restart loads its history instead of evaluating it.
        for (const slot of loaded.sessions.held()) await saveSessionState(loaded.kvCache, slot);
        await loaded.kvCache.idle();
      }
    } finally {
      release();
    }
    await loaded.context.dispose();
    if (this.config.path) await releaseModel(this.config.path);
  }

  async *stream(request: ProviderRequest): AsyncGenerator<ProviderEvent> {
    const started = Date.now();
    const builder = new AssistantMessageBuilder(this.id, this.model, "llama.cpp");
    yield { type: "start", model: this.model };
    const release = await this.lock();
    try {
      const loaded = await this.ensureLoaded();
      const sessionId = request.sessionId ?? "";
      const slot = await loaded.sessions.acquire(sessionId);
      const jsonMode = request.tools.length > 0 && this.config.toolCalling !== "off";
      const { tokens: promptTokens, prefixLength } = this.tokenize(
        loaded.model,
        renderPrompt(request, jsonMode, loaded.template),
        slot.generated,
      );
      const kvReuse = this.config.kvReuse ?? true;
      // A prompt past the window fails in runTurn as CONTEXT_OVERFLOW (compaction follows).
      const fits = promptTokens.length + 1 < slot.sequence.contextSize;
      const reuse =
        loaded.kvCache && kvReuse && fits
          ? await reuseSavedState({
              cache: loaded.kvCache,
              sequence: slot.sequence,
              owner: sessionOwner(sessionId),
              promptTokens,
              prefixLength,
            })
          : undefined;
      this.lastReuse = reuse;
      const grammar = jsonMode ? await this.grammarFor(request) : undefined;
      const { LlamaGrammarEvaluationState } = await import("node-llama-cpp");
      const outcome = yield* runTurn(
        {
          model: loaded.model,
          slot,
          promptTokens,
          stops: request.stop?.length
            ? [...loaded.template.stops, ...request.stop]
            : loaded.template.stops,
          ...(grammar
            ? { grammarState: new LlamaGrammarEvaluationState({ model: loaded.model, grammar }) }
            : {}),
          kvReuse,
          temperature: request.temperature ?? this.config.temperature,
          ...(this.config.seed !== undefined ? { seed: this.config.seed } : {}),
          maxTokens: request.maxTokens ?? this.config.maxTokens,
          ...(request.signal ? { signal: request.signal } : {}),
          newToolCallId: () => `call_${randomUUID().replaceAll("-", "").slice(0, 12)}`,
        },
        builder,
      );
      // Prefix tokens evaluated before the turn are input, not a cache read.
      const evaluatedBefore = reuse?.prefixEvaluated ?? 0;
      builder.setUsage({
        input: outcome.evaluated + evaluatedBefore,
        cacheRead: outcome.reused - evaluatedBefore,
        output: outcome.output,
      });
      if (outcome.stopReason === "aborted") {
        const error = new ClawboxError("ABORTED", "local generation aborted");
        this.counters.failed(error, builder.usage(), started);
        yield builder.errorEvent(error);
        return;
      }
      const message = builder.build(outcome.stopReason);
      if (outcome.replyTokens)
        loaded.sessions.remember(slot, assistantKey(message), outcome.replyTokens);
      this.counters.succeeded(message.usage, outcome.stopReason, started);
      yield { type: "done", message };
    } catch (thrown) {
      yield failedTurnEvent({
        provider: this.id,
        what: "local generation failed",
        error: classifyLocalFailure(thrown),
        builder,
        counters: this.counters,
        startedAt: started,
        ...(this.deps.logger ? { logger: this.deps.logger } : {}),
      });
    } finally {
      release();
    }
  }

  private ensureLoaded(): Promise<Loaded> {
    if (!this.loading) {
      this.status = "loading";
      this.loading = this.load().then(
        (loaded) => {
          this.status = "ready";
          this.loadedNow = loaded;
          return loaded;
        },
        (error: unknown) => {
          this.status = "error";
          this.loading = undefined;
          throw error;
        },
      );
    }
    return this.loading;
  }

  private async load(): Promise<Loaded> {
    const path = this.config.path;
    if (!path) {
      throw new ClawboxError(
        "MODEL_NOT_FOUND",
        `models.providers.${this.id}.path: no model file configured`,
        {
          hint: missingModelHint(),
          // The same command in the user's reply (failure-message.ts) as in the log.
          details: { pullCommand: missingModelPullCommand() },
        },
      );
    }
    const model = await acquireModel(path, this.config.threads, this.deps.logger);
    const sessions = this.config.sessions ?? 2;
    try {
      const contextSize =
        this.config.contextSize ?? Math.min(model.trainContextSize, LOCAL_CONTEXT_CAP);
      const context = await model.createContext({
        contextSize,
        sequences: sessions,
        threads: this.config.threads,
        // node-llama-cpp's default ("auto") turns flash attention on for CPU, which made
        // prompt evaluation ~3x and decoding ~2-4x slower here (npm run bench -- local-speed).
        flashAttention: this.config.flashAttention ?? false,
      });
      const template = await chatTemplateOf(model);
      this.deps.logger?.debug("local model loaded", {
        path,
        contextSize: context.contextSize,
        chatTemplate: describeChatTemplate(template),
      });
      const kvCache = await this.openKvCache(path, context);
      const hooks = kvCache
        ? {
            onEvict: (slot: SessionSlot) => saveSessionState(kvCache, slot),
            recall: (sessionId: string) => recallReplies(kvCache, sessionId),
          }
        : {};
      return {
        model,
        context,
        sessions: new SessionSequences(context, sessions, hooks),
        template,
        kvCache,
      };
    } catch (error) {
      await releaseModel(path);
      throw new ClawboxError(
        "MODEL_LOAD_FAILED",
        `${path}: could not create a llama.cpp context: ${errorMessage(error)}`,
        {
          hint: "lower models.providers.<id>.contextSize or sessions (not enough memory?)",
          cause: error,
        },
      );
    }
  }

  /** Saved KV states, unless turned off (no folder, `kvCacheDiskMB: 0`, `kvReuse: false`). */
  private async openKvCache(
    modelPath: string,
    context: LlamaContext,
  ): Promise<KvStateCache | undefined> {
    const root = this.deps.kvCacheDir;
    const megabytes = this.config.kvCacheDiskMB ?? DEFAULT_KV_CACHE_DISK_MB;
    if (!root || megabytes <= 0 || this.config.kvReuse === false) return undefined;
    try {
      // Loaded with the model, not at start: processes that never chat do not pay for it.
      const { KvStateCache } = await import("./kv-state-cache.ts");
      return await KvStateCache.open({
        root,
        modelPath,
        llama: await loadLlama(this.config.threads, this.deps.logger),
        context,
        maxBytes: megabytes * 1024 * 1024,
        ...(this.deps.logger ? { logger: this.deps.logger } : {}),
        ...(this.deps.kvStateWriter ? { writer: this.deps.kvStateWriter } : {}),
      });
    } catch (error) {
      this.deps.logger?.warn("saved KV states unavailable; every session evaluates its prompt", {
        folder: root,
        error: errorMessage(error),
      });
      return undefined;
    }
  }

  /** The prompt's tokens, and how many of them are its stable prefix. */
  private tokenize(
    model: LlamaModel,
    pieces: PromptPiece[],
    generated: Map<string, Token[]>,
  ): { tokens: Token[]; prefixLength: number } {
    // No BOS is added here: the template's `start` carries it where the model wants one.
    // Like node-llama-cpp's own LlamaText.tokenize, every piece after the first drops the
    // space a SentencePiece tokenizer would put in front of a text's first word.
    const tokens: Token[] = [];
    let prefixLength = 0;
    for (const [index, piece] of pieces.entries()) {
      const remembered = piece.kind === "assistant" ? generated.get(piece.key) : undefined;
      if (remembered) {
        tokens.push(...remembered);
        continue;
      }
      const first = index === 0;
      const memoKey = `${piece.kind === "markup" ? "m" : "t"}${first ? "0" : ""}:${piece.text}`;
      let pieceTokens = this.tokenMemo.get(memoKey);
      if (!pieceTokens) {
        pieceTokens = model.tokenize(
          piece.text,
          piece.kind === "markup",
          first ? undefined : "trimLeadingSpace",
        );
        if (this.tokenMemo.size >= TOKEN_MEMO_LIMIT) this.tokenMemo.clear();
        this.tokenMemo.set(memoKey, pieceTokens);
      }
      tokens.push(...pieceTokens);
      if (piece.kind !== "assistant" && piece.prefix) prefixLength = tokens.length;
    }
    return { tokens, prefixLength };
  }

  private grammarFor(request: ProviderRequest): Promise<LlamaGrammar> {
    const toolChoice = request.toolChoice === "required" ? "required" : "auto";
    const schema = replySchema(request.tools, {
      toolChoice,
      maxArgChars: this.config.maxArgChars ?? 256,
    });
    const key = JSON.stringify(schema);
    let grammar = this.grammars.get(key);
    if (!grammar) {
      grammar = loadLlama(this.config.threads, this.deps.logger).then((llama) =>
        llama.createGrammarForJsonSchema(
          schema as Parameters<typeof llama.createGrammarForJsonSchema>[0],
        ),
      );
      grammar.catch(() => this.grammars.delete(key));
      this.grammars.set(key, grammar);
    }
    return grammar;
  }

  private async lock(): Promise<() => void> {
    let release: () => void = () => {};
    const previous = this.queue;
    this.queue = new Promise<void>((resolve) => {
      release = resolve;
    });
    await previous;
    return release;
  }
}

function classifyLocalFailure(error: unknown): ClawboxError {
  if (isClawboxError(error)) return error;
  const text = errorMessage(error);
  if (/context size|context is full|no space|kv cache/i.test(text)) {
    return new ClawboxError("CONTEXT_OVERFLOW", `local model context exhausted: ${text}`, {
      cause: error,
    });
  }
  return new ClawboxError("MODEL_CRASHED", `local model failed while generating: ${text}`, {
    hint: "the model was reset; try again",
    cause: error,
  });
}
