/**
 * Adding, listing and removing reminders, shared by the `cron` tool and `clawbox cron`.
 * Enforces the limits (jobs per session, the 1-minute floor, non-empty text) before
 * anything is stored.
 */
import type { CronConfig } from "../config/index.ts";
import { ClawboxError } from "../errors/index.ts";
import type { CronJob, CronRun, CronStore } from "./cron-store.ts";
import type { Origin } from "./origin.ts";
import { describeSchedule, parseSchedule, type ScheduleInput } from "./schedule.ts";

export const MAX_TEXT_CHARS = 2000;

export interface AddJobInput extends ScheduleInput {
  sessionKey: string;
  text: string;
  origin: Origin;
}

export interface CronJobs {
  add(input: AddJobInput, now?: number): CronJob;
  list(sessionKey?: string): CronJob[];
  /** With `sessionKey`, only that session's job can be removed. */
  remove(id: string, sessionKey?: string): boolean;
  runs(jobId?: string): CronRun[];
}

export function createCronJobs(
  store: CronStore,
  config: CronConfig,
  defaultTimezone: string | undefined,
  onChange: () => void = () => {},
): CronJobs {
  return {
    add(input, now = Date.now()) {
      const text = input.text.trim();
      if (!text) throw new ClawboxError("TOOL_INVALID_ARGS", "text: the reminder needs some text");
      if (text.length > MAX_TEXT_CHARS)
        throw new ClawboxError(
          "TOOL_INVALID_ARGS",
          `text: ${text.length} characters is over the ${MAX_TEXT_CHARS}-character limit`,
        );
      const { schedule, nextRunAt } = parseSchedule(input, now, defaultTimezone);
      if (store.countActive(input.sessionKey) >= config.maxJobsPerSession)
        throw new ClawboxError(
          "TOOL_INVALID_ARGS",
          `this session already has ${config.maxJobsPerSession} reminders (cron.maxJobsPerSession)`,
          { hint: "remove one first" },
        );
      const job: CronJob = {
        id: crypto.randomUUID().slice(0, 8),
        sessionKey: input.sessionKey,
        text,
        schedule,
        nextRunAt,
        state: "active",
        origin: input.origin,
        createdAt: now,
      };
      store.insert(job);
      onChange();
      return job;
    },
    list: (sessionKey) => store.list(sessionKey),
    remove(id, sessionKey) {
      const removed = store.remove(id, sessionKey);
      if (removed) onChange();
      return removed;
    },
    runs: (jobId) => store.runs(jobId),
  };
}

/**
 * One line per job for tools and the CLI. The next run is shown in the job's own time
 * zone (`--tz`), else `timezone` (agent.timezone), else the system's, and names it.
 */
export function describeJob(job: CronJob, timezone?: string): string {
  const next =
    job.nextRunAt === undefined
      ? "finished"
      : `next ${zonedTime(job.nextRunAt, jobZone(job, timezone))}`;
  return `${job.id}  ${describeSchedule(job.schedule)}  ${next}  ${job.sessionKey}  "${job.text}"`;
}

/** The zone a job's times are shown in: its own (`--tz`), else agent.timezone, else the system's. */
export function jobZone(job: CronJob, timezone?: string): string {
  return job.schedule.timezone ?? timezone ?? Intl.DateTimeFormat().resolvedOptions().timeZone;
}

/** "2026-12-24 19:00:00 Asia/Shanghai": one time, in one zone, naming it. */
export function zonedTime(ms: number, zone: string): string {
  return `${new Date(ms).toLocaleString("sv-SE", { timeZone: zone })} ${zone}`;
}
