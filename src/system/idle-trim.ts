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
 * not climb through a long busy spell either. With `heapBound`, it also runs one full
 * collection (code kept) between two tasks whenever the JS heap has grown by
 * `growthBytes` since the last: JavaScriptCore alone lets a 5 MB live heap reach
 * 20–30 MB between its own collections, a peak that rose as turns got longer (the
 * slope of rss-after-use: 3.1 → 0.8 KiB per turn with this and the other bounds).
 *
 * With `rssBound`, it also trims between two tasks once RSS has grown by `growthBytes`
 * since the last trim, which keeps a box answering back to back within a band.
 *
 * Guarantees: it runs at most once per idle period (a quiet box does no repeated
 * work); while busy, at most once per `busyEveryMs` and once per `rssBound` growth;
 * never while a task runs; never keeps the process alive (the timer is unref'd). A
 * throwing hook is logged and the others still run.
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
   * Between two tasks, a full collection (no code dropped) once the JS heap has grown by
   * `growthBytes` since the last one: JavaScriptCore on its own lets a 5 MB live heap
   * reach 20–30 MB before it collects, and that peak rises as turns get longer.
   */
  heapBound?: HeapBound;
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

export interface HeapBound {
  growthBytes: number;
  /** Bytes in the JS heap now (default `process.memoryUsage().heapUsed`). */
  used?: () => number;
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

/** Collects between tasks whenever the heap has grown by `growthBytes` since the last time. */
function heapBounder(bound: HeapBound): { check(): void; reset(): void } {
  const used = bound.used ?? (() => process.memoryUsage().heapUsed);
  const collect = bound.collect ?? (() => Bun.gc(true));
  let base = used();
  return {
    check() {
      if (used() - base < bound.growthBytes) return;
      collect();
      base = used();
    },
    reset() {
      base = used();
    },
  };
}

export function createIdleTrimmer(options: IdleTrimOptions): IdleTrimmer {
  const collect = options.collect ?? giveBackHeap;
  const bounder = options.heapBound ? heapBounder(options.heapBound) : undefined;
  let running = 0;
  let trims = 0;
  let closed = false;
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
    bounder?.reset();
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
    const busyTooLong =
      options.busyEveryMs !== undefined && now() - lastTrim >= options.busyEveryMs;
    timer = setTimeout(trim, busyTooLong ? 0 : options.afterMs);
    timer.unref?.();
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
        bounder?.check();
        if (running === 0) {
          if (options.rssBound && rss() - rssBase >= options.rssBound.growthBytes) {
            if (timer) clearTimeout(timer);
            trim();
          }
          schedule();
        }
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
