/**
 * Schedules of reminders: `at` (one time: an ISO time, or "in 20 minutes"), `every`
 * (a duration) and `cron` (a croner expression in a time zone). Parsing validates
 * everything up front (bad expression, unknown time zone, an interval under the
 * 1-minute floor, a time in the past) with errors that say what to write instead.
 */
import { Cron } from "croner";
import { ClawboxError } from "../errors/index.ts";
import { formatDuration, parseDuration } from "./duration.ts";

export const MIN_INTERVAL_MS = 60_000;

export type ScheduleKind = "at" | "every" | "cron";

export interface Schedule {
  kind: ScheduleKind;
  /** at: the ISO instant; every: the duration as written; cron: the expression. */
  expr: string;
  timezone?: string;
  /** every: milliseconds. */
  everyMs?: number;
}

export interface ScheduleInput {
  at?: string;
  every?: string;
  cron?: string;
  timezone?: string;
}

const bad = (message: string, hint?: string) =>
  new ClawboxError("TOOL_INVALID_ARGS", message, hint ? { hint } : {});

export function checkTimezone(timezone: string): string {
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: timezone });
    return timezone;
  } catch {
    throw bad(`unknown time zone "${timezone}"`, 'use an IANA name such as "Asia/Shanghai"');
  }
}

function parseAt(text: string, now: number, timezone: string | undefined): number {
  const relative = /^\s*in\s+(.+)$/i.exec(text);
  if (relative) return now + parseDuration(relative[1] ?? "", "at");
  const iso = /^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?)?(Z|[+-]\d{2}:?\d{2})?$/;
  if (!iso.test(text.trim()))
    throw bad(
      `at: not a time: "${text}"`,
      'write an ISO time like "2026-12-24T19:00" (agent time zone) or "in 20 minutes"',
    );
  const normalized = text.trim().replace(" ", "T");
  // croner reads an ISO string without offset in the given time zone.
  const next = new Cron(normalized, { paused: true, ...(timezone ? { timezone } : {}) }).nextRun(
    new Date(now - 1),
  );
  if (!next) throw bad(`at: ${text} is in the past`);
  return next.getTime();
}

/** Validates one schedule; returns it with its first run time. */
export function parseSchedule(
  input: ScheduleInput,
  now: number,
  defaultTimezone?: string,
): { schedule: Schedule; nextRunAt: number } {
  const given = (["at", "every", "cron"] as const).filter((k) => input[k] !== undefined);
  if (given.length !== 1)
    throw bad("give exactly one of at, every or cron", 'e.g. at: "in 20 minutes"');
  const timezone = input.timezone ? checkTimezone(input.timezone) : defaultTimezone;
  if (input.at !== undefined) {
    const at = parseAt(input.at, now, timezone);
    if (at <= now) throw bad(`at: ${input.at} is in the past`);
    return {
      schedule: { kind: "at", expr: new Date(at).toISOString(), ...(timezone ? { timezone } : {}) },
      nextRunAt: at,
    };
  }
  if (input.every !== undefined) {
    const everyMs = parseDuration(input.every, "every");
    if (everyMs < MIN_INTERVAL_MS)
      throw bad(`every: ${formatDuration(everyMs)} is under the 1-minute minimum`);
    return {
      schedule: { kind: "every", expr: input.every.trim(), everyMs },
      nextRunAt: now + everyMs,
    };
  }
  const expr = (input.cron ?? "").trim();
  let cron: Cron;
  try {
    cron = new Cron(expr, { paused: true, ...(timezone ? { timezone } : {}) });
  } catch (error) {
    throw bad(
      `cron: bad expression "${expr}": ${(error as Error).message}`,
      'five fields "minute hour day month weekday", e.g. "0 7 * * 1-5"',
    );
  }
  const [first, second] = cron.nextRuns(2, new Date(now));
  if (!first) throw bad(`cron: "${expr}" never runs again`);
  if (second && second.getTime() - first.getTime() < MIN_INTERVAL_MS)
    throw bad(`cron: "${expr}" runs more often than once a minute`);
  return {
    schedule: { kind: "cron", expr, ...(timezone ? { timezone } : {}) },
    nextRunAt: first.getTime(),
  };
}

/** The run after `after` (ms), or undefined when the schedule is finished. */
export function nextRunAfter(
  schedule: Schedule,
  previous: number,
  after: number,
): number | undefined {
  if (schedule.kind === "at") return undefined;
  if (schedule.kind === "every") {
    const every = schedule.everyMs ?? MIN_INTERVAL_MS;
    const next = previous + every;
    return next > after ? next : after + every;
  }
  const cron = new Cron(schedule.expr, {
    paused: true,
    ...(schedule.timezone ? { timezone: schedule.timezone } : {}),
  });
  return cron.nextRun(new Date(after))?.getTime();
}

export function describeSchedule(schedule: Schedule): string {
  // A one-off's time is its next run, shown once in its zone beside this (not as UTC ISO).
  if (schedule.kind === "at") return "once";
  if (schedule.kind === "every") return `every ${formatDuration(schedule.everyMs ?? 0)}`;
  return `cron "${schedule.expr}"${schedule.timezone ? ` (${schedule.timezone})` : ""}`;
}
