/** A counting semaphore: at most `max` runs at once across all sessions (FIFO). */
export interface ConcurrencyLimit {
  run<T>(task: () => Promise<T>): Promise<T>;
  readonly active: number;
}

export function createConcurrencyLimit(max: number): ConcurrencyLimit {
  let active = 0;
  const waiting: (() => void)[] = [];
  const acquire = (): Promise<void> => {
    if (active < max) {
      active++;
      return Promise.resolve();
    }
    return new Promise((resolve) =>
      waiting.push(() => {
        active++;
        resolve();
      }),
    );
  };
  const release = () => {
    active--;
    waiting.shift()?.();
  };
  return {
    async run(task) {
      await acquire();
      try {
        return await task();
      } finally {
        release();
      }
    },
    get active() {
      return active;
    },
  };
}
