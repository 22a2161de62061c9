/**
 * One run at a time per session key: tasks for the same key run in arrival order,
 * tasks for different keys run side by side (bounded by the concurrency limit the
 * caller wraps around each task). A failing task never blocks the ones after it.
 */
export interface SessionQueue {
  enqueue<T>(key: string, task: () => Promise<T>): Promise<T>;
  /** True while a task for `key` runs or waits. */
  busy(key: string): boolean;
  /** Resolves when every queued task has finished. */
  idle(): Promise<void>;
}

export function createSessionQueue(): SessionQueue {
  const tails = new Map<string, Promise<unknown>>();
  const counts = new Map<string, number>();
  return {
    enqueue(key, task) {
      counts.set(key, (counts.get(key) ?? 0) + 1);
      const previous = tails.get(key) ?? Promise.resolve();
      const next = previous.then(task, task);
      const tail = next.then(
        () => undefined,
        () => undefined,
      );
      tails.set(key, tail);
      void tail.then(() => {
        const left = (counts.get(key) ?? 1) - 1;
        if (left === 0) {
          counts.delete(key);
          if (tails.get(key) === tail) tails.delete(key);
        } else counts.set(key, left);
      });
      return next;
    },
    busy: (key) => (counts.get(key) ?? 0) > 0,
    async idle() {
      while (tails.size > 0) await Promise.all([...tails.values()]);
    },
  };
}
