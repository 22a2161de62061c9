/**
 * What is saved in one model's folder of KV-cache states: each state's metadata
 * (`<id>.json`: scope, owner, exact tokens, state file, its size and sha256) beside its
 * state file (`<id>.<savedAt>.kv`), held in memory as entries, and the disk bound: the
 * least recently used go first (states of another context setting, then owners' own,
 * then shared ones). Reading the folder removes what no version of this process can
 * ever load (unreadable metadata, another format, runtime or model) and state files no
 * metadata names; states of another context setting stay (that setting may come back)
 * but are marked refused.
 */
import { readdirSync, readFileSync, rmSync, statSync, utimesSync } from "node:fs";
import { join } from "node:path";
import { z } from "../../schema/index.ts";
import type { Logger } from "../../system/index.ts";
import { type KvStateScope, scopeMismatch } from "./kv-state-scope.ts";

const scopeSchema = z.object({
  format: z.number(),
  runtime: z.string(),
  modelSha256: z.string(),
  contextSize: z.number(),
  sequences: z.number(),
  batchSize: z.number(),
  flashAttention: z.boolean(),
  kvKeyType: z.number(),
  kvValueType: z.number(),
});

const tokenList = z.array(z.number().check(z.int(), z.minimum(0)));

const metadataSchema = z.object({
  format: z.number(),
  scope: scopeSchema,
  owner: z.optional(z.string()),
  tokens: tokenList,
  stateFile: z.string().check(z.regex(/^[0-9a-f]{32}\.\d+\.kv$/)),
  stateBytes: z.number().check(z.int(), z.minimum(0)),
  stateSha256: z.string().check(z.regex(/^[0-9a-f]{64}$/)),
  savedAt: z.number(),
  /** Opaque to the cache: what the owner wants back with its state. */
  extra: z.optional(z.unknown()),
});
export type Metadata = z.infer<typeof metadataSchema>;

export interface Entry {
  id: string;
  owner: string | undefined;
  tokens: Uint32Array;
  stateFile: string;
  stateBytes: number;
  stateSha256: string;
  lastUsed: number;
  /** Why it cannot be loaded here (another context's settings); it still takes disk. */
  refused?: string;
}

export class KvStateIndex {
  readonly entries = new Map<string, Entry>();

  constructor(
    readonly dir: string,
    private readonly scope: KvStateScope,
    readonly maxBytes: number,
    private readonly logger: Logger | undefined,
  ) {}

  /** Reads every state of this folder: unreadable and never-loadable ones are removed. */
  read(): void {
    for (const name of readdirSync(this.dir)) {
      const match = /^([0-9a-f]{32})\.json$/.exec(name);
      if (!match?.[1]) continue;
      const id = match[1];
      const metadata = this.metadata(id);
      if (!metadata) {
        this.logger?.warn("saved KV state unreadable; removed", { state: id });
        this.removeFiles(id, undefined);
        continue;
      }
      const mismatch = scopeMismatch(metadata.scope, this.scope);
      const stale =
        metadata.scope.format !== this.scope.format ||
        metadata.scope.runtime !== this.scope.runtime ||
        metadata.scope.modelSha256 !== this.scope.modelSha256;
      if (mismatch && stale) {
        // No version of this process can ever load it here.
        this.logger?.info("saved KV state removed: it cannot be loaded", {
          state: id,
          reason: mismatch,
        });
        this.removeFiles(id, metadata.stateFile);
        continue;
      }
      if (mismatch)
        this.logger?.debug("saved KV state kept but not used", { state: id, reason: mismatch });
      let lastUsed = metadata.savedAt;
      try {
        lastUsed = statSync(join(this.dir, name)).mtimeMs;
      } catch {
        // Removed meanwhile by another process: the load finds out.
      }
      this.entries.set(id, {
        id,
        owner: metadata.owner,
        tokens: Uint32Array.from(metadata.tokens),
        stateFile: metadata.stateFile,
        stateBytes: metadata.stateBytes,
        stateSha256: metadata.stateSha256,
        lastUsed,
        ...(mismatch ? { refused: mismatch } : {}),
      });
    }
    this.removeOrphans();
    this.evictFor(0, undefined);
  }

  metadata(id: string): Metadata | undefined {
    try {
      const parsed = metadataSchema.safeParse(
        JSON.parse(readFileSync(join(this.dir, `${id}.json`), "utf8")),
      );
      return parsed.success ? parsed.data : undefined;
    } catch {
      return undefined;
    }
  }

  /** State files no metadata names (a crash between rename and metadata), an hour old. */
  private removeOrphans(): void {
    const named = new Set([...this.entries.values()].map((entry) => entry.stateFile));
    for (const name of readdirSync(this.dir)) {
      if (!name.endsWith(".kv") || named.has(name)) continue;
      try {
        if (Date.now() - statSync(join(this.dir, name)).mtimeMs > 3_600_000)
          rmSync(join(this.dir, name), { force: true });
      } catch {
        // gone already
      }
    }
  }

  /** Removes least recently used states (not `keep`) until `incoming` more bytes fit. */
  evictFor(incoming: number, keep: string | undefined): void {
    const rank = (entry: Entry) => (entry.refused ? 0 : entry.owner ? 1 : 2);
    const order = [...this.entries.values()]
      .filter((entry) => entry.id !== keep)
      .sort((a, b) => rank(a) - rank(b) || a.lastUsed - b.lastUsed);
    for (const entry of order) {
      if (this.usedBytes() + incoming <= this.maxBytes) return;
      this.logger?.debug("saved KV state evicted (disk bound)", {
        state: entry.id,
        bytes: entry.stateBytes,
      });
      this.remove(entry);
    }
  }

  remove(entry: Entry): void {
    this.entries.delete(entry.id);
    this.removeFiles(entry.id, entry.stateFile);
  }

  private removeFiles(id: string, stateFile: string | undefined): void {
    rmSync(join(this.dir, `${id}.json`), { force: true });
    if (stateFile) rmSync(join(this.dir, stateFile), { force: true });
  }

  touch(entry: Entry): void {
    entry.lastUsed = Date.now();
    try {
      const now = new Date();
      utimesSync(join(this.dir, `${entry.id}.json`), now, now);
    } catch {
      // Only the order of eviction after a restart depends on it.
    }
  }

  usedBytes(): number {
    let sum = 0;
    for (const entry of this.entries.values()) sum += entry.stateBytes;
    return sum;
  }

  /** The largest bytes per token seen so far (0 before the first save: nothing to go by). */
  bytesPerToken(): number {
    let most = 0;
    for (const entry of this.entries.values()) {
      if (entry.tokens.length > 0) most = Math.max(most, entry.stateBytes / entry.tokens.length);
    }
    return most;
  }
}
