/**
 * A counting semaphore: at most `max` runs at once across all sessions, owners first
 * (issue 37). Waiting owner runs start before any waiting stranger run, and at most
 * `strangerMax` stranger runs hold a slot at once, so an owner's turn never waits behind
 * more than that many running stranger turns. Within each class, first come first served.
 */
export type RunClass = "owner" | "stranger";

export interface ConcurrencyLimit {
  run<T>(task: () => Promise<T>, runClass?: RunClass): Promise<T>;
  readonly active: number;
}

export function createConcurrencyLimit(max: number, strangerMax = max): ConcurrencyLimit {
  let active = 0;
  let strangersActive = 0;
  const waiting: Record<RunClass, (() => void)[]> = { owner: [], stranger: [] };
  const pump = () => {
    while (active < max) {
      const next =
        waiting.owner.shift() ??
        (strangersActive < strangerMax ? waiting.stranger.shift() : undefined);
      if (!next) return;
      next();
    }
  };
  const acquire = (runClass: RunClass): Promise<void> =>
    new Promise((resolve) => {
      waiting[runClass].push(() => {
        active++;
        if (runClass === "stranger") strangersActive++;
        resolve();
      });
      pump();
    });
  const release = (runClass: RunClass) => {
    active--;
    if (runClass === "stranger") strangersActive--;
    pump();
  };
  return {
    async run(task, runClass = "owner") {
      await acquire(runClass);
      try {
        return await task();
      } finally {
        release(runClass);
      }
    },
    get active() {
      return active;
    },
  };
}
