/**
 * Fires due reminders. Started after READY by `clawbox run`. At start it settles what a
 * stopped or killed process left: a run caught mid-turn is retried once, a job that came
 * due while the box was down runs once when younger than `cron.catchUp` and is
 * recorded as missed otherwise. Each due time is claimed in the store before its turn
 * starts, so it fires once even across restarts or with a second process.
 */
import type { CronConfig } from "../config/index.ts";
import { errorMessage } from "../errors/index.ts";
import type { Logger } from "../system/index.ts";
import type { CronJob, CronStore } from "./cron-store.ts";
import { formatDuration, parseDuration } from "./duration.ts";
import { nextRunAfter } from "./schedule.ts";
import type { ScheduledTurn, TurnOutcome } from "./scheduled-turn.ts";

export interface CronRunnerDeps {
  store: CronStore;
  config: CronConfig;
  logger: Logger;
  runTurn: (turn: ScheduledTurn) => Promise<TurnOutcome>;
  now?: () => number;
  /** Longest sleep between checks (jobs added by another process are seen this late). */
  maxSleepMs?: number;
}

export interface CronRunner {
  start(): void;
  /** Re-plans the timer (after a job was added or removed in this process). */
  poke(): void;
  close(): Promise<void>;
}

const REMINDER_LEAD = "[Scheduled reminder ";
const REMINDER_ASK =
  "The user gets this reminder's text as it is; add a brief useful note, or reply NO_REPLY.";

/** The text of a reminder turn: what the owner asked to be reminded of. */
export function reminderPrompt(job: CronJob, scheduledFor: number, late: boolean): string {
  const when = new Date(scheduledFor).toISOString();
  return [
    `${REMINDER_LEAD}${job.id}, due ${when}${late ? ", delivered late after a restart" : ""}]`,
    job.text,
    REMINDER_ASK,
  ].join("\n");
}

/** The reminder's own text in a stored reminder prompt; undefined for any other message. */
export function reminderTextOf(prompt: string): string | undefined {
  if (!prompt.startsWith(REMINDER_LEAD)) return undefined;
  const lines = prompt.split("\n").slice(1);
  if (lines.at(-1) === REMINDER_ASK || lines.at(-1) === "Tell the user about it now, briefly.")
    lines.pop();
  return lines.join("\n").trim();
}

export function createCronRunner(deps: CronRunnerDeps): CronRunner {
  const now = deps.now ?? Date.now;
  const catchUpMs = parseDuration(deps.config.catchUp, "cron.catchUp");
  const maxSleep = deps.maxSleepMs ?? 30_000;
  const inFlight = new Set<Promise<void>>();
  let timer: ReturnType<typeof setTimeout> | undefined;
  let closed = false;
  const log = deps.logger;

  const fire = (job: CronJob, scheduledFor: number, late: boolean) => {
    const run = deps
      .runTurn({
        sessionKey: job.sessionKey,
        text: reminderPrompt(job, scheduledFor, late),
        origin: job.origin,
        runKind: "cron",
        mustSay: job.text,
      })
      .then(
        (outcome) => {
          deps.store.finish(
            job.id,
            scheduledFor,
            outcome.ok ? "ok" : "failed",
            outcome.detail,
            now(),
            outcome.delivered,
          );
          log.info(`reminder ${job.id} ran`, { ok: outcome.ok, detail: outcome.detail });
        },
        (error: unknown) => {
          const detail = errorMessage(error);
          deps.store.finish(job.id, scheduledFor, "failed", detail, now());
          log.warn(`reminder ${job.id} failed`, { error: detail });
        },
      )
      .finally(() => inFlight.delete(run));
    inFlight.add(run);
  };

  const recoverInterrupted = () => {
    const at = now();
    for (const run of deps.store.takeInterrupted(at)) {
      const job = deps.store.get(run.jobId);
      if (!job) continue;
      if (at - run.scheduledFor > catchUpMs) {
        log.warn(`reminder ${job.id} was interrupted and is too old to retry`);
        continue;
      }
      if (deps.store.claimRetry(run.jobId, run.scheduledFor, at)) fire(job, run.scheduledFor, true);
    }
  };

  const tick = () => {
    timer = undefined;
    if (closed) return;
    try {
      const at = now();
      for (const job of deps.store.due(at)) {
        const scheduledFor = job.nextRunAt;
        if (scheduledFor === undefined) continue;
        const late = at - scheduledFor;
        const next = nextRunAfter(job.schedule, scheduledFor, at);
        if (late > catchUpMs) {
          const detail = `missed by ${formatDuration(late)} (over cron.catchUp ${deps.config.catchUp})`;
          if (deps.store.claim(job, next, "missed", at, detail))
            log.warn(`reminder ${job.id} missed`, { detail });
          continue;
        }
        if (deps.store.claim(job, next, "running", at)) fire(job, scheduledFor, late > 5_000);
      }
    } catch (error) {
      log.error("cron check failed", {
        error: errorMessage(error),
      });
    }
    plan();
  };

  const plan = () => {
    if (closed) return;
    if (timer) clearTimeout(timer);
    const next = deps.store.nextDueAt();
    const wait = next === undefined ? maxSleep : Math.min(Math.max(next - now(), 0), maxSleep);
    timer = setTimeout(tick, wait);
    timer.unref?.();
  };

  return {
    start() {
      recoverInterrupted();
      tick();
    },
    poke: () => plan(),
    async close() {
      closed = true;
      if (timer) clearTimeout(timer);
      await Promise.allSettled([...inFlight]);
    },
  };
}
