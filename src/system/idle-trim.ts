/**
 * Gives memory back after a busy period. A burst of turns leaves behind compiled code
 * (bytecode and JIT code of every path a turn took), free space in the JS heap and in
 * JavaScriptCore's allocator, SQLite's page cache and per-session caches; nothing uses
 * them while the box waits. Once no tracked task has run for `afterMs`, the trimmer
 * calls its hooks (drop per-session caches, `PRAGMA shrink_memory`), then one full
 * collection and `Bun.shrink()` (JavaScriptCore's shrinkFootprintWhenIdle: it drops all
 * compiled code, collects again and returns the allocator's free pages to the OS). The
 * next turn compiles what it runs again, a few milliseconds. Measured with
 * `npm run bench -- rss-after-use` (docs/BENCHMARKS.md): after 1,000 turns the full
 * collection alone left ≈ 24 MB anonymous memory, with the shrink ≈ 13 MB (11 at READY).
 * A box that is never quiet that long (turns back to back) trims in the first gap
 * between two tasks once `busyEveryMs` has passed since the last trim, so memory does
 * not climb through a long busy spell either. With `collectAfterTasks`, it also runs one
 * full collection (code kept) after every task, on the next turn of the event loop so the
 * task's result goes out first: JavaScriptCore on its own lets a 5 MB live heap reach
 * 20–30 MB between its own collections, a peak that rises as turns get longer (the
 * busy band of rss-after-use: 8 MB wide without it, 1 MB with it). It is done
 * after every task, not after some growth of the heap, because Bun's heap figures
 * (`process.memoryUsage().heapUsed`, `bun:jsc` `heapSize()`) change only at collections.
 *
 * With `rssBound`, it also trims between two tasks once RSS has grown by `growthBytes`
 * since the last trim, which keeps a box answering back to back within a band. A busy or
 * RSS trim that is due runs on the next turn of the event loop after the task, in place
 * of its collection: the task's result goes out first, and the next request, arriving
 * later, cannot cancel it (a zero timer could be, and then neither ran).
 *
 * Guarantees: it runs at most once per idle period (a quiet box does no repeated
 * work); while busy, at most once per `busyEveryMs` and once per `rssBound` growth;
 * never while a task runs; never keeps the process alive (the timer is unref'd). A
 * throwing hook is logged and the others still run. The collection after tasks is only a
 * collection: it may run while another task waits on I/O, as JavaScriptCore's own do.
 */

import { errorMessage } from "../errors/index.ts";
import type { Logger } from "./logger.ts";

export interface IdleTrimmer {
  /** Resolves like `task`; the box counts as busy until it settles. */
  track<T>(task: Promise<T>): Promise<T>;
  /** Trims that ran so far. */
  trims(): number;
  /** Stops the timer; no trim runs after this. */
  close(): void;
}

export interface IdleTrimOptions {
  /** Idle time before trimming. */
  afterMs: number;
  /** Each drops something kept only to speed up later work. Must not throw (it is logged). */
  hooks: readonly (() => void)[];
  logger?: Logger;
  /** The full collection (default: `Bun.gc(true)` then `Bun.shrink()`). */
  collect?: () => void;
  /**
   * A box that never goes quiet for `afterMs` (back-to-back turns) also trims, in the
   * first gap between tasks once this long has passed since the last trim.
   */
  busyEveryMs?: number;
  /**
   * After every task, one full collection (no code dropped), on the next turn of the event
   * loop (tasks that end together share one): JavaScriptCore on its own lets a 5 MB live
   * heap reach 20–30 MB before it collects, and that peak rises as turns get longer.
   */
  collectAfterTasks?: CollectAfterTasks;
  /**
   * Between two tasks (none running), the whole trim once RSS has grown by `growthBytes`
   * over what it was right after the last trim. What a full collection leaves (compiled
   * code, the allocator's free pages) only a trim gives back, so without this a busy box
   * climbs until `busyEveryMs` passes, however fast turns come.
   */
  rssBound?: RssBound;
  /** Clock (ms), for tests. */
  now?: () => number;
}

export interface CollectAfterTasks {
  /** The collection (default `Bun.gc(true)`). */
  collect?: () => void;
}

export interface RssBound {
  growthBytes: number;
  /** Resident bytes now (default `process.memoryUsage.rss()`). */
  rss?: () => number;
}

/**
 * One full collection, then JavaScriptCore's own footprint shrink (`Bun.shrink()`:
 * drops compiled code, collects again and returns the allocator's free pages).
 */
function giveBackHeap(): void {
  Bun.gc(true);
  (Bun as { shrink?: () => void }).shrink?.();
}

export function createIdleTrimmer(options: IdleTrimOptions): IdleTrimmer {
  const collect = options.collect ?? giveBackHeap;
  let running = 0;
  let trims = 0;
  let closed = false;
  const collectAfterTask = options.collectAfterTasks
    ? (options.collectAfterTasks.collect ?? (() => Bun.gc(true)))
    : undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const now = options.now ?? Date.now;
  let lastTrim = now();
  const rss = options.rssBound?.rss ?? (() => process.memoryUsage.rss());
  let rssBase = options.rssBound ? rss() : 0;

  const trim = () => {
    timer = undefined;
    if (closed) return;
    lastTrim = now();
    const before = process.memoryUsage.rss();
    for (const hook of options.hooks) {
      try {
        hook();
      } catch (error) {
        options.logger?.warn("idle trim step failed", {
          error: errorMessage(error),
        });
      }
    }
    collect();
    if (options.rssBound) rssBase = rss();
    trims++;
    const mb = (bytes: number) => Math.round(bytes / 104857.6) / 10;
    options.logger?.debug("idle: memory given back", {
      rssBeforeMb: mb(before),
      rssAfterMb: mb(process.memoryUsage.rss()),
    });
  };
  const schedule = () => {
    if (closed) return;
    if (timer) clearTimeout(timer);
    timer = setTimeout(trim, options.afterMs);
    timer.unref?.();
  };
  /** A busy box's trim is due: busy for `busyEveryMs`, or RSS past its bound. */
  const trimDue = () =>
    (options.busyEveryMs !== undefined && now() - lastTrim >= options.busyEveryMs) ||
    (options.rssBound !== undefined && rss() - rssBase >= options.rssBound.growthBytes);
  let afterTaskPending = false;
  /**
   * On the next turn of the event loop after a task, so its result has gone out (tasks
   * that end together share it): the whole trim when one is due and no task runs,
   * otherwise the collection after tasks.
   */
  const afterTask = () => {
    if (afterTaskPending) return;
    afterTaskPending = true;
    setImmediate(() => {
      afterTaskPending = false;
      if (closed) return;
      if (running === 0 && trimDue()) {
        // In place of the idle timer set when the task ended: a new one starts after it.
        if (timer) clearTimeout(timer);
        trim();
        schedule();
      } else collectAfterTask?.();
    });
  };
  // Starting up is a burst of its own.
  schedule();

  return {
    async track(task) {
      running++;
      if (timer) clearTimeout(timer);
      timer = undefined;
      try {
        return await task;
      } finally {
        running--;
        if (running === 0) schedule();
        afterTask();
      }
    },
    trims: () => trims,
    close() {
      closed = true;
      if (timer) clearTimeout(timer);
      timer = undefined;
    },
  };
}
