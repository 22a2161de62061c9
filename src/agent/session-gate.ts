/**
 * `runExclusive(sessionKey, task)`: the one way to touch a session's transcript (a chat
 * turn, /compact, `clawbox compact`, `sessions delete`, the console). The task runs
 * after every earlier task for that key in this process (the session queue), while this
 * process holds the key's cross-process lease (so `clawbox run` and a CLI command take
 * turns instead of interleaving writes), and inside the concurrency limit
 * (`agent.maxConcurrent`). The lease is released however the task ends.
 *
 * Strangers get a bounded share (issue 37): at most `STRANGER_RUNS` of their runs hold a
 * slot at once, owners' waiting runs go first, and at most `STRANGER_PENDING` stranger
 * runs wait or run in this process; one more is refused at once (AGENT_BUSY) instead of
 * queueing, so forty strangers cannot make an owner's turn wait behind them.
 */
import { ClawboxError } from "../errors/index.ts";
import type { LeaseHolder, Store } from "../store/index.ts";
import type { Logger } from "../system/index.ts";
import { createConcurrencyLimit } from "./concurrency-limit.ts";
import { createSessionQueue } from "./session-queue.ts";

export interface ExclusiveOptions {
  signal?: AbortSignal;
  /**
   * false: when another process holds the session, fail at once with SESSION_BUSY
   * instead of waiting (for commands a person is watching, like `sessions delete`).
   */
  wait?: boolean;
  /** Outside the concurrency limit (quick bookkeeping such as /new, which runs no model). */
  unlimited?: boolean;
  /** Told once when another process holds the session and this one waits. */
  onWait?: (holder: LeaseHolder) => void;
  /** A stranger's run: it gets the strangers' bounded share, after waiting owners. */
  stranger?: boolean;
}

export interface SessionGate {
  runExclusive<T>(
    sessionKey: string,
    task: () => Promise<T>,
    options?: ExclusiveOptions,
  ): Promise<T>;
  /** True while a task for `sessionKey` runs or waits in this process. */
  busy(sessionKey: string): boolean;
  /** Resolves when every task has finished. */
  idle(): Promise<void>;
}

export interface SessionGateDeps {
  store: Store;
  /** `agent.maxConcurrent`. */
  maxConcurrent: number;
  logger: Logger;
  /** Aborts every wait for another process's lease (the agent closing). */
  closed?: AbortSignal;
}

/** Stranger runs that may hold a concurrency slot at once. */
export const STRANGER_RUNS = 1;
/** Stranger runs that may wait or run at once in this process (more are refused). */
export const STRANGER_PENDING = 16;

export function createSessionGate(deps: SessionGateDeps): SessionGate {
  const queue = createSessionQueue();
  const limit = createConcurrencyLimit(deps.maxConcurrent, STRANGER_RUNS);
  let strangersPending = 0;

  async function withLease<T>(
    sessionKey: string,
    options: ExclusiveOptions,
    task: () => Promise<T>,
  ): Promise<T> {
    const signals = [options.signal, deps.closed].filter((s): s is AbortSignal => s !== undefined);
    const signal = signals.length > 0 ? AbortSignal.any(signals) : undefined;
    let lease: ReturnType<Store["leases"]["tryAcquire"]>;
    if (options.wait === false) {
      lease = deps.store.leases.tryAcquire(sessionKey);
      if (!lease) {
        const holder = deps.store.leases.holder(sessionKey);
        throw new ClawboxError(
          "SESSION_BUSY",
          `session ${sessionKey} is in use${holder ? ` by process ${holder.pid} on ${holder.host}` : ""}`,
          { hint: "wait for its reply to finish, or stop that process" },
        );
      }
    } else {
      lease = await deps.store.leases.acquire(sessionKey, {
        ...(signal ? { signal } : {}),
        onWait: (holder) => {
          deps.logger.info("session busy in another process; waiting for it", {
            sessionKey,
            pid: holder.pid,
            host: holder.host,
          });
          options.onWait?.(holder);
        },
      });
    }
    try {
      return await task();
    } finally {
      lease.release();
    }
  }

  return {
    runExclusive(sessionKey, task, options = {}) {
      const runClass = options.stranger ? "stranger" : "owner";
      const limited = () =>
        withLease(sessionKey, options, () =>
          options.unlimited ? task() : limit.run(task, runClass),
        );
      if (!options.stranger || options.unlimited) return queue.enqueue(sessionKey, limited);
      if (strangersPending >= STRANGER_PENDING)
        return Promise.reject(
          new ClawboxError(
            "AGENT_BUSY",
            `${strangersPending} turns of senders who are not owners are already waiting or running`,
            { hint: "try again in a minute; owners are not affected" },
          ),
        );
      strangersPending++;
      return queue.enqueue(sessionKey, limited).finally(() => {
        strangersPending--;
      });
    },
    busy: (sessionKey) => queue.busy(sessionKey),
    idle: () => queue.idle(),
  };
}
