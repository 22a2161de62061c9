/**
 * Proactive turns (SPEC §10): cron reminders, the heartbeat and follow-ups. Timers start
 * only when `clawbox run` calls `start` after READY.
 */

export { createScheduler, type Scheduler, type SchedulerDeps } from "./create-scheduler.ts";
export { type CronJobs, describeJob, jobZone, zonedTime } from "./cron-jobs.ts";
export {
  type CronRunner,
  createCronRunner,
  reminderPrompt,
  reminderTextOf,
} from "./cron-runner.ts";
export type { CronJob, CronRun } from "./cron-store.ts";
export { CronStore } from "./cron-store.ts";
export {
  createDelivery,
  type Delivery,
  type ProactiveSender,
  type ProactiveSenders,
} from "./delivery.ts";
export { formatDuration, parseDuration } from "./duration.ts";
export { createFollowupExtractor, looksLikePromise } from "./followup-extractor.ts";
export { type Followup, FollowupStore } from "./followup-store.ts";
export {
  type BeatResult,
  createHeartbeat,
  type Heartbeat,
  heartbeatPrompt,
} from "./heartbeat.ts";
export { type Origin, parseTarget } from "./origin.ts";
export { type OutboxStates, type ShownRunStatus, shownRunStatus } from "./run-status.ts";
export { describeSchedule, MIN_INTERVAL_MS, parseSchedule } from "./schedule.ts";
export { runScheduledTurn, type TurnOutcome, type TurnRunner } from "./scheduled-turn.ts";
