/**
 * Saved KV-cache states of one model and context, on disk: a state is what a sequence
 * held (its exact tokens and their evaluated keys and values, through node-llama-cpp's
 * `saveStateToFile`), so a sequence that starts with the same tokens loads it instead
 * of evaluating them again. node-llama-cpp 3.21.1 cannot copy one sequence into another
 * inside a context (llama.cpp's `llama_memory_seq_cp` is not exposed), so sharing goes
 * through the file, which the page cache keeps in RAM while there is room.
 *
 * Nothing here knows prompts: a state is any token sequence, either shared (no owner:
 * any request whose tokens start with it may load it, e.g. an evaluated system prompt)
 * or private to an owner (a session's history; only that owner loads it). The caller
 * decides what to save; `restore` picks the state sharing the longest prefix with the
 * tokens it is given.
 *
 * Loading a wrong state can crash llama.cpp, so a state is loaded only after: its scope
 * (format, runtime, model hash, context settings: kv-state-scope.ts) equals this
 * context's, its tokens share the prefix, and the file has the size and sha256 recorded
 * when it was written. After loading, the sequence must hold exactly the recorded tokens.
 * Any failure refuses the state with a log line saying why, removes it, and leaves the
 * sequence empty: the caller evaluates the tokens as if nothing was saved.
 *
 * Disk: at most `maxBytes` per model; before a save, and after it, the least recently
 * used states go (states of another scope first, then private, then shared ones), and a
 * state is not written when the disk has less than `DISK_MARGIN_MB` left. A state is
 * written to a temp file beside its place, then, off the turn, fsynced, hashed, renamed
 * into place (commitFileAtomic) and described by its metadata file (writeFileAtomic):
 * a power cut leaves either no state or a whole one.
 */
import { randomBytes } from "node:crypto";
import { chmodSync, rmSync, statfsSync, statSync } from "node:fs";
import { join } from "node:path";
import type { Llama, LlamaContext, LlamaContextSequence, Token } from "node-llama-cpp";
import pkg from "../../../package.json" with { type: "json" };
import { errorMessage } from "../../errors/index.ts";
import { DISK_MARGIN_MB } from "../../models/index.ts";
import { commitFileAtomic, type Logger, writeFileAtomic } from "../../system/index.ts";
import { openModelFolder } from "./kv-state-folders.ts";
import { type Entry, KvStateIndex, type Metadata } from "./kv-state-index.ts";
import {
  type KvStateScope,
  STATE_FORMAT,
  scopeOf,
  sha256OfFile,
  stateId,
} from "./kv-state-scope.ts";
import { sharedPrefix } from "./shared-prefix.ts";

/** States shorter than this are not worth a file. */
const MIN_STATE_TOKENS = 8;

/** How the state of a sequence reaches a file; tests inject a failing writer (full disk). */
export interface StateWriter {
  save(sequence: LlamaContextSequence, path: string): Promise<number>;
}

const nativeWriter: StateWriter = {
  save: async (sequence, path) => (await sequence.saveStateToFile(path)).fileSize,
};

export interface KvStateCacheOptions {
  /** `<home>/cache/kv`. */
  root: string;
  modelPath: string;
  llama: Llama;
  context: LlamaContext;
  maxBytes: number;
  logger?: Logger;
  writer?: StateWriter;
}

export interface Restored {
  /** Tokens of the request now in the sequence. */
  tokens: number;
  ms: number;
  owner: string | undefined;
  /** The owner's `extra` saved with the state. */
  extra?: unknown;
}

export interface KvCacheStats {
  entries: number;
  bytes: number;
  maxBytes: number;
  loads: number;
  saves: number;
  refused: number;
}

export class KvStateCache {
  /** States written but not committed yet, and their owners. */
  private readonly pending = new Map<string, string | undefined>();
  /** Shared states whose write failed: not tried again by this process (a full disk stays full). */
  private readonly failed = new Set<string>();
  private commits: Promise<void> = Promise.resolve();
  private counts = { loads: 0, saves: 0, refused: 0 };

  private constructor(
    private readonly index: KvStateIndex,
    private readonly scope: KvStateScope,
    private readonly writer: StateWriter,
    private readonly logger: Logger | undefined,
  ) {}

  /** Hashes the model (once per file), sweeps folders of models that are gone, reads the index. */
  static async open(options: KvStateCacheOptions): Promise<KvStateCache> {
    const folder = await openModelFolder(options.root, options.modelPath, options.logger);
    const scope = scopeOf(
      options.llama,
      pkg.dependencies["node-llama-cpp"],
      folder.sha256,
      options.context,
    );
    const index = new KvStateIndex(folder.dir, scope, options.maxBytes, options.logger);
    index.read();
    return new KvStateCache(index, scope, options.writer ?? nativeWriter, options.logger);
  }

  /**
   * Loads into `sequence` the state sharing the longest prefix with `tokens` (shared
   * states and `owner`'s own), when that beats the `held` tokens the sequence already
   * shares with them. The sequence is cleared first; a state longer than the shared
   * prefix is cut back to it (only where the sequence can erase its tail). Never throws:
   * a refused or failed state leaves the sequence empty and undefined is returned.
   */
  async restore(
    sequence: LlamaContextSequence,
    tokens: readonly Token[],
    options: { owner?: string; held: number },
  ): Promise<Restored | undefined> {
    // A state still being committed (e.g. this session's own, saved when it gave its
    // sequence away a moment ago) is waited for: its fsync is cheaper than evaluating.
    const wanted = [...this.pending.values()].some((owner) => !owner || owner === options.owner);
    if (wanted) await this.commits;
    const exactOnly = sequence.needsCheckpoints;
    const candidates = [...this.index.entries.values()]
      .filter((entry) => !entry.refused && (!entry.owner || entry.owner === options.owner))
      .map((entry) => {
        const shared = sharedPrefix(entry.tokens, tokens);
        return { entry, shared: exactOnly && shared < entry.tokens.length ? 0 : shared };
      })
      .filter(({ shared }) => shared >= MIN_STATE_TOKENS && shared > options.held)
      .sort((a, b) => b.shared - a.shared);
    for (const { entry } of candidates) {
      const started = performance.now();
      const restored = await this.load(sequence, entry, tokens);
      if (!restored) continue;
      this.counts.loads += 1;
      const ms = performance.now() - started;
      this.logger?.debug("KV state loaded", {
        state: entry.id,
        tokens: restored.tokens,
        ms: Math.round(ms),
        shared: entry.owner === undefined,
      });
      return { ...restored, ms };
    }
    return undefined;
  }

  /**
   * Saves what `sequence` holds: shared when `owner` is undefined (skipped if the same
   * tokens are saved already), else as `owner`'s one state (replacing its previous one).
   * The file is written now (the sequence may change right after); fsync, hash and
   * metadata follow off the caller's path (`idle()` waits for them). Never throws.
   */
  async save(
    sequence: LlamaContextSequence,
    options: { owner?: string; extra?: unknown } = {},
  ): Promise<{ bytes: number; ms: number } | undefined> {
    const tokens = sequence.contextTokens;
    if (tokens.length < MIN_STATE_TOKENS || this.index.maxBytes <= 0) return undefined;
    const id = stateId(this.scope, options.owner, options.owner ? undefined : tokens);
    const existing = this.index.entries.get(id);
    if (existing && sameTokens(existing.tokens, tokens)) return undefined;
    if (this.pending.has(id) || this.failed.has(id)) return undefined;
    const estimate = this.index.bytesPerToken() * tokens.length;
    if (estimate > this.index.maxBytes) {
      this.logger?.info("KV state not saved: larger than the disk allowed for saved states", {
        tokens: tokens.length,
        estimatedBytes: estimate,
        maxBytes: this.index.maxBytes,
      });
      return undefined;
    }
    this.index.evictFor(estimate, id);
    const free = freeBytes(this.index.dir);
    if (free !== undefined && free < estimate + DISK_MARGIN_MB * 1024 * 1024) {
      this.logger?.warn("KV state not saved: the disk is nearly full", {
        freeBytes: free,
        estimatedBytes: estimate,
      });
      return undefined;
    }
    const savedAt = Date.now();
    const stateFile = `${id}.${savedAt}.kv`;
    const temp = join(
      this.index.dir,
      `.${id}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`,
    );
    const started = performance.now();
    let bytes: number;
    try {
      bytes = await this.writer.save(sequence, temp);
    } catch (error) {
      rmSync(temp, { force: true });
      if (options.owner === undefined) this.failed.add(id);
      this.logger?.warn("KV state not saved: writing it failed; the next turns evaluate it", {
        tokens: tokens.length,
        error: errorMessage(error),
      });
      return undefined;
    }
    const ms = performance.now() - started;
    this.pending.set(id, options.owner);
    const metadata: Omit<Metadata, "stateSha256"> = {
      format: STATE_FORMAT,
      scope: this.scope,
      ...(options.owner !== undefined ? { owner: options.owner } : {}),
      tokens: [...tokens],
      stateFile,
      stateBytes: bytes,
      savedAt,
      ...(options.extra !== undefined ? { extra: options.extra } : {}),
    };
    this.commits = this.commits.then(() => this.commit(id, temp, metadata));
    return { bytes, ms };
  }

  /** What the owner saved with its state (e.g. a session's reply tokens), if it has one. */
  async extraOf(owner: string): Promise<unknown> {
    if ([...this.pending.values()].includes(owner)) await this.commits;
    const entry = this.index.entries.get(stateId(this.scope, owner));
    if (!entry || entry.refused) return undefined;
    return this.index.metadata(entry.id)?.extra;
  }

  /** Waits until every save has reached the disk (or failed). */
  idle(): Promise<void> {
    return this.commits;
  }

  stats(): KvCacheStats {
    return {
      entries: this.index.entries.size,
      bytes: this.index.usedBytes(),
      maxBytes: this.index.maxBytes,
      ...this.counts,
    };
  }

  private async load(
    sequence: LlamaContextSequence,
    entry: Entry,
    tokens: readonly Token[],
  ): Promise<Omit<Restored, "ms"> | undefined> {
    const path = join(this.index.dir, entry.stateFile);
    const damage = await this.damageOf(entry, path);
    if (damage) {
      this.refuse(entry, damage);
      return undefined;
    }
    await sequence.clearHistory();
    try {
      await sequence.loadStateFromFile(path, { acceptRisk: true });
    } catch (error) {
      await sequence.clearHistory();
      this.refuse(entry, `llama.cpp could not load it: ${errorMessage(error)}`);
      return undefined;
    }
    if (!sameTokens(entry.tokens, sequence.contextTokens)) {
      await sequence.clearHistory();
      this.refuse(entry, "it loaded other tokens than its metadata lists");
      return undefined;
    }
    if (sequence.nextTokenIndex > sharedPrefix(entry.tokens, tokens))
      await sequence.adaptStateToTokens([...tokens], false);
    this.index.touch(entry);
    const extra = entry.owner ? this.index.metadata(entry.id)?.extra : undefined;
    return {
      tokens: sequence.nextTokenIndex,
      owner: entry.owner,
      ...(extra !== undefined ? { extra } : {}),
    };
  }

  /** Why the file at `path` is not the state `entry` describes, or undefined. */
  private async damageOf(entry: Entry, path: string): Promise<string | undefined> {
    try {
      const size = statSync(path).size;
      if (size !== entry.stateBytes)
        return `the file has ${size} bytes, ${entry.stateBytes} were written (truncated?)`;
      const sha256 = await sha256OfFile(path);
      if (sha256 !== entry.stateSha256)
        return "its sha256 differs from the one written (corrupted)";
    } catch (error) {
      return `it cannot be read: ${errorMessage(error)}`;
    }
    return undefined;
  }

  private refuse(entry: Entry, why: string): void {
    this.counts.refused += 1;
    this.logger?.warn("saved KV state refused and removed; evaluating the prompt instead", {
      state: entry.id,
      tokens: entry.tokens.length,
      reason: why,
    });
    this.index.remove(entry);
  }

  private async commit(
    id: string,
    temp: string,
    metadata: Omit<Metadata, "stateSha256">,
  ): Promise<void> {
    const path = join(this.index.dir, metadata.stateFile);
    try {
      // A session's state holds its conversation (as keys and values, and as tokens in
      // the metadata): readable by the service's user alone, like the database.
      chmodSync(temp, 0o600);
      const stateSha256 = await sha256OfFile(temp);
      await commitFileAtomic(temp, path);
      writeFileAtomic(
        join(this.index.dir, `${id}.json`),
        `${JSON.stringify({ ...metadata, stateSha256 })}\n`,
        { mode: 0o600 },
      );
      const previous = this.index.entries.get(id);
      if (previous && previous.stateFile !== metadata.stateFile)
        rmSync(join(this.index.dir, previous.stateFile), { force: true });
      this.index.entries.set(id, {
        id,
        owner: metadata.owner,
        tokens: Uint32Array.from(metadata.tokens),
        stateFile: metadata.stateFile,
        stateBytes: metadata.stateBytes,
        stateSha256,
        lastUsed: Date.now(),
      });
      this.counts.saves += 1;
      this.logger?.debug("KV state saved", {
        state: id,
        tokens: metadata.tokens.length,
        bytes: metadata.stateBytes,
        shared: metadata.owner === undefined,
      });
      this.index.evictFor(0, id);
      if (this.index.usedBytes() > this.index.maxBytes) {
        const entry = this.index.entries.get(id);
        if (entry) this.index.remove(entry);
      }
    } catch (error) {
      rmSync(temp, { force: true });
      if (this.index.entries.get(id)?.stateFile !== metadata.stateFile)
        rmSync(path, { force: true });
      if (metadata.owner === undefined) this.failed.add(id);
      this.logger?.warn("KV state not saved: finishing the file failed", {
        tokens: metadata.tokens.length,
        error: errorMessage(error),
      });
    } finally {
      this.pending.delete(id);
    }
  }
}

function sameTokens(a: ArrayLike<number>, b: ArrayLike<number>): boolean {
  return a.length === b.length && sharedPrefix(a, b) === a.length;
}

function freeBytes(dir: string): number | undefined {
  try {
    const stat = statfsSync(dir);
    return stat.bavail * stat.bsize;
  } catch {
    return undefined;
  }
}
