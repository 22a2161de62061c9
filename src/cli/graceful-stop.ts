/**
 * Stopping `clawbox run` within the service manager's patience. The first SIGTERM or
 * SIGINT stops new work (`stopIntake`) and lets running replies finish for at most
 * `drainMs` (default 20 s, below the unit's TimeoutStopSec=30). Then the runs still
 * going are aborted — each stores what it has, marked aborted — and everything closes.
 * A second signal skips the rest of the drain; if closing then still hangs past
 * `forceMs`, the process exits anyway.
 *
 * One Ctrl-C can arrive twice: under `npm start` the terminal sends SIGINT to npm and to
 * clawbox (one process group), and npm forwards its copy to clawbox as well. A SIGINT
 * within `echoMs` of the first is that echo, not a second Ctrl-C, so one Ctrl-C drains.
 */
import type { Logger } from "../system/index.ts";

export interface StopSteps {
  /** Stop accepting requests, channel messages and schedules (not awaited during the drain). */
  stopIntake(): void;
  /** Resolves when no run is running or queued. */
  idle(): Promise<void>;
  /** Aborts what still runs and closes everything (database last). */
  close(): Promise<void>;
  drainMs: number;
  /** Hard limit for `close` after a forced stop (default 5 s). */
  forceMs?: number;
  /** A SIGINT this soon after the first is the same Ctrl-C (default 500 ms). */
  echoMs?: number;
  logger: Logger;
  /** Leaves the process (tests pass a recorder). */
  exit?: (code: number) => void;
}

/** Installs the SIGTERM/SIGINT handlers; resolves with the exit code once stopped. */
export function handleStopSignals(steps: StopSteps): Promise<number> {
  const exit = steps.exit ?? ((code: number) => process.exit(code));
  return new Promise<number>((resolve) => {
    let stopping = false;
    let first: { signal: NodeJS.Signals; at: number } | undefined;
    let force: (() => void) | undefined;
    const forced = new Promise<void>((r) => {
      force = r;
    });
    const stop = async (signal: string) => {
      stopping = true;
      steps.logger.info(`${signal}: stopping; running replies get ${steps.drainMs} ms to finish`);
      steps.stopIntake();
      let timer: ReturnType<typeof setTimeout> | undefined;
      const drained = await Promise.race([
        steps.idle().then(() => true),
        new Promise<false>((r) => {
          timer = setTimeout(() => r(false), steps.drainMs);
        }),
        forced.then(() => false),
      ]);
      clearTimeout(timer);
      if (!drained) steps.logger.warn("aborting the replies still running; what they have is kept");
      await steps.close();
      steps.logger.info("stopped");
      resolve(0);
    };
    const onSignal = (signal: NodeJS.Signals) => {
      if (!stopping) {
        first = { signal, at: Date.now() };
        void stop(signal);
        return;
      }
      if (
        signal === "SIGINT" &&
        first?.signal === "SIGINT" &&
        Date.now() - first.at < (steps.echoMs ?? 500)
      ) {
        steps.logger.debug(
          "SIGINT again at once: the same Ctrl-C (npm forwards it); still draining",
        );
        return;
      }
      steps.logger.warn(`${signal} again: stopping now`);
      force?.();
      const hard = setTimeout(() => {
        steps.logger.error("could not close in time; exiting");
        exit(1);
      }, steps.forceMs ?? 5000);
      hard.unref();
    };
    process.on("SIGTERM", onSignal);
    process.on("SIGINT", onSignal);
  });
}
