/**
 * The memory area as one service: resolves the embedding model (lazily, once), keeps
 * the index current (initial sync, file watcher), answers searches (and records
 * them), runs dreaming on its schedule and reports its health. `clawbox run` creates
 * one with `createMemory` and hands `tools` to the agent.
 */
import type { AgentConfig, ContextConfig, MemoryConfig } from "../config/index.ts";
import { errorMessage } from "../errors/index.ts";
import { installedModelDir, pullCommand, readInstalledModel } from "../models/index.ts";
import { createSessionResolver, HOUSEHOLD, type SessionResolver } from "../sessions/index.ts";
import type { Store } from "../store/index.ts";
import type { HomePaths, Logger } from "../system/index.ts";
import type { AgentTool } from "../tools/index.ts";
import { type DreamSchedule, dreamPlan, scheduleDreaming } from "./dream-schedule.ts";
import { type DreamReport, dream } from "./dreaming.ts";
import type { Embedder } from "./embedding/embedder.ts";
import { lazyEmbedder } from "./embedding/lazy-embedder.ts";
import { createOnnxEmbedder } from "./embedding/onnx-embedder.ts";
import { hybridSearch, type MemorySearchResponse, type SearchOptions } from "./hybrid-search.ts";
import { type IndexStats, MemoryIndex } from "./memory-index.ts";
import { createMemoryTools } from "./memory-tools.ts";
import { type MemoryWatcher, watchMemoryFiles } from "./memory-watcher.ts";
import { RecallLog } from "./recall-log.ts";
import {
  entriesOfLines,
  parseSessionIndexPath,
  renderSession,
  SESSION_PATH_PREFIX,
  sessionSnapshots,
} from "./session-transcripts.ts";
import { type MemoryBudgetReport, memoryStartupBudget } from "./startup-budget.ts";
import { indexedModel } from "./vector-table.ts";

export interface MemoryDeps {
  /** The sections memory reads: its own, the agent's (owners) and the bootstrap budget. */
  config: {
    memory: MemoryConfig;
    agent: AgentConfig;
    context: Pick<ContextConfig, "bootstrapMaxChars">;
  };
  store: Store;
  paths: HomePaths;
  logger: Logger;
  /** Use this embedder instead of loading the configured model (tests, benchmarks); null = keyword-only. */
  embedder?: Embedder | null;
  /** Who each session belongs to (transcript search); default: built from `config.agent`. */
  sessions?: SessionResolver;
}

export interface MemoryStatus {
  enabled: boolean;
  workspace: string;
  mode: "hybrid" | "keyword";
  reason: string | undefined;
  /** The command that installs the configured embedding model, when it is not installed. */
  fix: string | undefined;
  /** `loaded`: the model is in memory (it loads on the first text to embed). */
  model: { name: string; dimension: number; loaded: boolean } | undefined;
  indexedModel: { name: string; dimension: number } | undefined;
  files: number;
  chunks: number;
  embeddedChunks: number;
  cachedEmbeddings: number;
  recalls: number;
  sqliteVec: string | undefined;
  dreaming: { enabled: boolean; preset: string; cron: string; nextRun: string | null };
}

export interface MemoryService {
  readonly tools: AgentTool[];
  /** Initial index, watcher and dreaming schedule (per config). Never throws. */
  start(): Promise<void>;
  index(options?: { force?: boolean }): Promise<IndexStats>;
  search(
    query: string,
    /**
     * `principal`: the asker ("owner", a stranger's sender id, a group); transcript hits
     * are then only from that principal's sessions. Absent: every session (the owner's
     * own `clawbox memory search`).
     */
    options?: SearchOptions & { sessionKey?: string; principal?: string },
  ): Promise<MemorySearchResponse>;
  status(): Promise<MemoryStatus>;
  dream(now?: number): Promise<DreamReport>;
  startupBudget(budgetChars?: number): MemoryBudgetReport;
  /** Waits for queued recall records. */
  flush(): Promise<void>;
  close(): Promise<void>;
}

export function createMemory(deps: MemoryDeps): MemoryService {
  const settings = deps.config.memory;
  const workspace = deps.paths.workspace;
  const db = deps.store.db;
  const logger = deps.logger.child("memory");
  const sessions = deps.sessions ?? createSessionResolver(deps.config.agent);
  const recalls = new RecallLog(db, logger);
  const vectorsUnavailable = deps.store.vecVersion
    ? undefined
    : `sqlite-vec not loaded (${deps.store.vecError ?? "unknown"})`;
  let embedderPromise:
    | Promise<{ embedder: Embedder | undefined; reason: string | undefined; fix?: string }>
    | undefined;
  let watcher: MemoryWatcher | undefined;
  let schedule: DreamSchedule | undefined;
  let indexing: Promise<IndexStats> | undefined;
  let dirty = true;

  const modelName = settings.embedding.model;
  const resolveEmbedder = () => {
    if (embedderPromise) return embedderPromise;
    embedderPromise = (async () => {
      if (deps.embedder !== undefined) {
        return {
          embedder: deps.embedder ?? undefined,
          reason: deps.embedder ? undefined : "no embedding model given",
        };
      }
      if (modelName === "none" && !settings.embedding.dir) {
        return { embedder: undefined, reason: 'memory.embedding.model is "none"' };
      }
      const dir = settings.embedding.dir ?? installedModelDir(deps.paths.modelsDir, modelName);
      try {
        const installed = readInstalledModel(dir);
        if (!installed) {
          const fix = pullCommand(modelName);
          return {
            embedder: undefined,
            reason: `embedding model ${modelName} is not installed in ${dir} (run "${fix}")`,
            fix,
          };
        }
        // Loaded on the first text to embed (a search, new notes), not at start.
        const embedder = lazyEmbedder(
          installed,
          () =>
            createOnnxEmbedder(installed, {
              threads: settings.embedding.threads,
              batchSize: settings.embedding.batchSize,
            }),
          (error) => {
            logger.warn("embedding model unavailable, memory search is keyword-only", {
              error: String(error),
            });
            embedderPromise = Promise.resolve({
              embedder: undefined,
              reason: errorMessage(error),
            });
          },
        );
        return { embedder, reason: undefined };
      } catch (error) {
        logger.warn("embedding model unavailable, memory search is keyword-only", {
          error: String(error),
        });
        return {
          embedder: undefined,
          reason: errorMessage(error),
        };
      }
    })();
    return embedderPromise;
  };

  const makeIndex = async () => {
    const { embedder } = await resolveEmbedder();
    return new MemoryIndex({
      db,
      workspace,
      chunk: settings.chunk,
      embedder,
      vectors: vectorsUnavailable === undefined,
      logger,
    });
  };

  const index = async (options: { force?: boolean; embed?: boolean } = {}): Promise<IndexStats> => {
    if (indexing) await indexing.catch(() => undefined);
    dirty = false;
    indexing = (async () => (await makeIndex()).sync(options))();
    try {
      return await indexing;
    } finally {
      indexing = undefined;
    }
  };

  const search: MemoryService["search"] = async (query, options = {}) => {
    if (dirty || !watcher) {
      try {
        await index();
      } catch (error) {
        logger.warn("memory index update failed before search", { error: String(error) });
      }
    }
    if (settings.sessions.enabled) {
      try {
        await indexSessions();
      } catch (error) {
        logger.warn("session transcript indexing failed", { error: String(error) });
      }
    }
    const { embedder, reason } = await resolveEmbedder();
    const { principal } = options;
    const response = await hybridSearch(
      {
        db,
        settings: settings.search,
        embedder,
        vectorsUnavailable: embedder ? vectorsUnavailable : reason,
      },
      query,
      principal === undefined ? options : { ...options, visiblePath: ownSessions(principal) },
    );
    if (settings.sessions.enabled) describeSessionHits(response);
    recalls.record(query, response, options.sessionKey);
    return response;
  };

  /**
   * Memory files (not for the household), and the transcripts of the sessions that belong to `principal`: the
   * session a hit came from, not whichever session its key names now (a stranger paired
   * as an owner keeps their stranger-era session under the same key).
   */
  const ownSessions = (principal: string) => (path: string) => {
    // The household (voice rooms) reads no owner-private memory file (docs/SECURITY.md).
    if (!path.startsWith(SESSION_PATH_PREFIX)) return principal !== HOUSEHOLD;
    const indexed = parseSessionIndexPath(path);
    const session = indexed && deps.store.sessions.get(indexed.sessionId);
    return session !== undefined && sessions.principalOfSession(session) === principal;
  };

  /** Incremental: only sessions whose transcript changed since the last call are read. */
  const indexSessions = async (): Promise<IndexStats> =>
    (await makeIndex()).syncSessions(
      sessionSnapshots(deps.store),
      (sessionId) => renderSession(deps.store, sessionId).text,
    );

  /** Names the session and transcript entries of each session hit. */
  const describeSessionHits = (response: MemorySearchResponse): void => {
    for (const result of response.results) {
      if (result.source !== "session") continue;
      const indexed = parseSessionIndexPath(result.path);
      if (!indexed) continue;
      result.sessionKey = indexed.sessionKey;
      const session = deps.store.sessions.get(indexed.sessionId);
      if (!session) continue;
      const rendered = renderSession(deps.store, session.sessionId);
      result.entryIds = entriesOfLines(rendered, result.startLine, result.endLine);
    }
  };

  const plan = dreamPlan(settings.dreaming);
  const service: MemoryService = {
    tools: createMemoryTools({ workspace, search: (q, o) => search(q, o) }),
    async start() {
      if (!settings.enabled) return;
      try {
        // Text only at start: embedding would load the model; the first search does it.
        const stats = await index({ embed: false });
        dirty = true;
        logger.info("memory indexed", {
          files: stats.files,
          added: stats.chunksAdded,
          embedded: stats.embedded,
        });
      } catch (error) {
        logger.warn("initial memory index failed", { error: String(error) });
      }
      if (settings.watch && !watcher) {
        watcher = watchMemoryFiles(
          workspace,
          () => {
            dirty = true;
            index().catch((error) =>
              logger.warn("memory re-index failed", { error: String(error) }),
            );
          },
          logger,
        );
      }
      if (settings.dreaming.enabled && !schedule) {
        schedule = scheduleDreaming(
          plan,
          async () => {
            await service.dream();
          },
          logger,
        );
      }
    },
    index,
    search,
    async status() {
      const { embedder, reason, fix } = await resolveEmbedder();
      const count = (sql: string) => (db.query(sql).get() as { n: number }).n;
      const useVectors = embedder !== undefined && vectorsUnavailable === undefined;
      return {
        enabled: settings.enabled,
        workspace,
        mode: useVectors ? "hybrid" : "keyword",
        reason: useVectors ? undefined : embedder ? vectorsUnavailable : reason,
        fix,
        model: embedder
          ? {
              name: embedder.name,
              dimension: embedder.dimension,
              loaded: "loaded" in embedder ? embedder.loaded === true : true,
            }
          : undefined,
        indexedModel: indexedModel(db),
        files: count("SELECT count(*) AS n FROM memory_files"),
        chunks: count("SELECT count(*) AS n FROM memory_chunks"),
        embeddedChunks: count("SELECT count(*) AS n FROM memory_chunks WHERE embedded = 1"),
        cachedEmbeddings: count("SELECT count(*) AS n FROM memory_embedding_cache"),
        recalls: count("SELECT count(*) AS n FROM memory_recalls"),
        sqliteVec: deps.store.vecVersion,
        dreaming: {
          enabled: settings.dreaming.enabled,
          preset: plan.preset,
          cron: plan.cron,
          nextRun: schedule?.nextRun()?.toISOString() ?? null,
        },
      };
    },
    async dream(now) {
      await recalls.flush();
      const report = dream(db, workspace, plan, now);
      if (report.promotedLines.length > 0) dirty = true;
      logger.info("memory dreaming done", {
        candidates: report.candidates.length,
        promoted: report.promotedLines.length,
      });
      return report;
    },
    startupBudget(budgetChars = deps.config.context.bootstrapMaxChars) {
      return memoryStartupBudget(workspace, budgetChars);
    },
    flush: () => recalls.flush(),
    async close() {
      watcher?.close();
      watcher = undefined;
      schedule?.stop();
      schedule = undefined;
      await indexing?.catch(() => undefined);
      await recalls.flush();
      const resolved = embedderPromise ? await embedderPromise : undefined;
      if (resolved?.embedder && deps.embedder === undefined) await resolved.embedder.close();
    },
  };
  return service;
}
