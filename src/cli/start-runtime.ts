/**
 * The composition root shared by `run` and `chat`: config, store, workspace, agent.
 * Only what a command needs is started; nothing here loads a model (the agent's
 * providers do that lazily on the first turn).
 */
import { type Agent, createAgent } from "../agent/index.ts";
import type { ClawboxConfig } from "../config/index.ts";
import { errorMessage } from "../errors/index.ts";
import { createMemory, type MemoryService } from "../memory/index.ts";
import { createScheduler, type Scheduler } from "../scheduler/index.ts";
import type { SessionResolver } from "../sessions/index.ts";
import { damagedDatabaseError, type Store } from "../store/index.ts";
import {
  createIdleTrimmer,
  createSystemdNotifier,
  type HomePaths,
  type IdleTrimmer,
  type Logger,
  type SystemdNotifier,
} from "../system/index.ts";
import { seedWorkspace } from "../workspace/index.ts";
import type { CliContext } from "./cli-context.ts";
import { runtimeTools } from "./runtime-tools.ts";

export interface Runtime {
  config: ClawboxConfig;
  paths: HomePaths;
  store: Store;
  agent: Agent;
  /** Which session a turn uses and who a session belongs to; one for the whole process. */
  sessions: SessionResolver;
  /** Undefined when `memory.enabled` is false; not started (see `MemoryService.start`). */
  memory: MemoryService | undefined;
  /** Cron tool and jobs at once; timers only after `scheduler.start` (clawbox run, after READY). */
  scheduler: Scheduler;
  logger: Logger;
  notifier: SystemdNotifier;
  /** "ok" or what is wrong with the database (cheap; for /health). */
  dbHealth(): string;
  close(): Promise<void>;
}

export interface StartOptions {
  /**
   * What a failed `PRAGMA quick_check` at start does: "refuse" (chat: exit with the
   * plain message) or "report" (run: start, log it, and /health shows it degraded).
   */
  onDamage?: "refuse" | "report";
  /**
   * Give memory back after busy periods (run: the service): once no turn has run for
   * IDLE_TRIM_MS (or, on a box busy without a pause, between two turns every
   * BUSY_TRIM_MS), per-session caches are dropped, SQLite shrinks its page cache, and a
   * full garbage collection and JavaScriptCore's footprint shrink return free pages; after
   * every turn, one full collection keeps the heap near its live size (src/system/idle-trim.ts).
   */
  trimWhenIdle?: boolean;
}

/** Idle time after the last turn before the service gives memory back. */
export const IDLE_TRIM_MS = 10_000;
/** A box busy without a pause gives memory back between two turns this often. */
export const BUSY_TRIM_MS = 30_000;
/** Between two turns, the whole trim once RSS has grown this much since the last trim. */
export const RSS_GROWTH_BYTES = 6 * 1024 * 1024;

/** `agent` whose turns count as activity for `trimmer`. */
function trackedAgent(agent: Agent, trimmer: IdleTrimmer): Agent {
  return { ...agent, chat: (request) => trimmer.track(agent.chat(request)) };
}

export async function startRuntime(ctx: CliContext, options: StartOptions = {}): Promise<Runtime> {
  const notifier = createSystemdNotifier(ctx.env);
  const { config } = ctx.config();
  const paths = ctx.resolvedPaths();
  const logger = ctx.logger();
  notifier.status("opening database");
  const store = ctx.store();
  const quick = store.quickCheck();
  // The first database failure since start, kept for /health (a damaged page stays damaged).
  let dbFailure: string | undefined;
  if (quick !== "ok") {
    const damaged = damagedDatabaseError(store.path, `quick_check: ${quick}`);
    if ((options.onDamage ?? "refuse") === "refuse") throw damaged;
    logger.error(damaged.message);
    dbFailure = `quick_check at start: ${quick}`;
  }
  const seeded = seedWorkspace(paths.workspace);
  if (seeded.created.length > 0) {
    logger.info(`workspace seeded at ${paths.workspace}`, { created: seeded.created });
  }
  const sessions = ctx.sessions();
  // Created, not started: `run` starts indexing, the watcher and dreaming after READY;
  // `chat` never does (a search brings the index up to date itself).
  const memory = config.memory.enabled
    ? createMemory({ config, store, paths, logger, sessions })
    : undefined;
  const scheduler = createScheduler({
    config,
    store,
    workspace: paths.workspace,
    logger: logger.child("scheduler"),
    sessions,
  });
  notifier.status("starting agent");
  const observed = scheduler.observe(
    createAgent({
      config,
      store,
      paths,
      logger: logger.child("agent"),
      sessions,
      ...runtimeTools({ config, paths, memory, scheduler }),
    }),
  );
  // Sessions idle as long as the box: all of them when the trim runs.
  const trimmer = options.trimWhenIdle
    ? createIdleTrimmer({
        afterMs: IDLE_TRIM_MS,
        busyEveryMs: BUSY_TRIM_MS,
        collectAfterTasks: {},
        rssBound: { growthBytes: RSS_GROWTH_BYTES },
        hooks: [() => observed.trim(IDLE_TRIM_MS), () => store.shrinkMemory()],
        logger: logger.child("memory"),
      })
    : undefined;
  const agent = trimmer ? trackedAgent(observed, trimmer) : observed;
  let closed = false;
  return {
    config,
    paths,
    store,
    agent,
    sessions,
    memory,
    scheduler,
    logger,
    notifier,
    dbHealth() {
      if (dbFailure) return dbFailure;
      try {
        store.db.query("SELECT session_id FROM sessions LIMIT 1").get();
        return "ok";
      } catch (error) {
        dbFailure = `query failed: ${errorMessage(error)}`;
        return dbFailure;
      }
    },
    async close() {
      if (closed) return;
      closed = true;
      trimmer?.close();
      const scheduled = scheduler.close();
      await agent.close();
      await scheduled;
      await memory?.close();
    },
  };
}
