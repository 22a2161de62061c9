/**
 * The cron tables. A run is claimed by inserting its (job, due time) row and moving the
 * job's next run in one transaction that must change exactly one job row, so a due
 * time fires once even with two processes or after a crash and restart.
 */
import type { Database } from "bun:sqlite";
import { ClawboxError } from "../errors/index.ts";
import type { DeliveryState } from "./delivery.ts";
import { type Origin, originSchema } from "./origin.ts";
import type { Schedule, ScheduleKind } from "./schedule.ts";

export interface CronJob {
  id: string;
  sessionKey: string;
  text: string;
  schedule: Schedule;
  /** ms since epoch; undefined when finished. */
  nextRunAt: number | undefined;
  state: "active" | "done";
  origin: Origin;
  createdAt: number;
}

export type RunStatus = "running" | "ok" | "failed" | "missed" | "interrupted";

export interface CronRun {
  jobId: string;
  scheduledFor: number;
  startedAt: number;
  finishedAt: number | undefined;
  attempts: number;
  status: RunStatus;
  detail: string | undefined;
  /** The reminder's text when it ran (undefined for runs recorded before it was kept). */
  text: string | undefined;
  /** How its message went out, once it ran (see `DeliveryState`). */
  delivery: DeliveryState | undefined;
  /** The channel outbox rows carrying it to a QQ or WeCom peer. */
  outboxIds: number[];
}

interface JobRow {
  id: string;
  session_key: string;
  text: string;
  kind: ScheduleKind;
  expr: string;
  timezone: string | null;
  every_ms: number | null;
  next_run_at: number | null;
  state: "active" | "done";
  origin: string;
  created_at: number;
}

interface RunRow {
  job_id: string;
  scheduled_for: number;
  started_at: number;
  finished_at: number | null;
  attempts: number;
  status: RunStatus;
  detail: string | null;
  text: string | null;
  delivery: DeliveryState | null;
  outbox_ids: string | null;
}

function toJob(row: JobRow): CronJob {
  return {
    id: row.id,
    sessionKey: row.session_key,
    text: row.text,
    schedule: {
      kind: row.kind,
      expr: row.expr,
      ...(row.timezone ? { timezone: row.timezone } : {}),
      ...(row.every_ms ? { everyMs: row.every_ms } : {}),
    },
    nextRunAt: row.next_run_at ?? undefined,
    state: row.state,
    origin: originSchema.parse(JSON.parse(row.origin)),
    createdAt: row.created_at,
  };
}

const toRun = (row: RunRow): CronRun => ({
  jobId: row.job_id,
  scheduledFor: row.scheduled_for,
  startedAt: row.started_at,
  finishedAt: row.finished_at ?? undefined,
  attempts: row.attempts,
  status: row.status,
  detail: row.detail ?? undefined,
  text: row.text ?? undefined,
  delivery: row.delivery ?? undefined,
  outboxIds: row.outbox_ids ? (JSON.parse(row.outbox_ids) as number[]) : [],
});

export class CronStore {
  constructor(private readonly db: Database) {}

  insert(job: CronJob): void {
    this.db
      .query(
        `INSERT INTO cron_jobs (id, session_key, text, kind, expr, timezone, every_ms, next_run_at, state, origin, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        job.id,
        job.sessionKey,
        job.text,
        job.schedule.kind,
        job.schedule.expr,
        job.schedule.timezone ?? null,
        job.schedule.everyMs ?? null,
        job.nextRunAt ?? null,
        job.state,
        JSON.stringify(job.origin),
        job.createdAt,
      );
  }

  get(id: string): CronJob | undefined {
    const row = this.db.query("SELECT * FROM cron_jobs WHERE id = ?").get(id) as JobRow | null;
    return row ? toJob(row) : undefined;
  }

  /** Active jobs (all sessions, or one), soonest first. */
  list(sessionKey?: string): CronJob[] {
    const rows = (
      sessionKey === undefined
        ? this.db.query("SELECT * FROM cron_jobs WHERE state = 'active' ORDER BY next_run_at").all()
        : this.db
            .query(
              "SELECT * FROM cron_jobs WHERE state = 'active' AND session_key = ? ORDER BY next_run_at",
            )
            .all(sessionKey)
    ) as JobRow[];
    return rows.map(toJob);
  }

  countActive(sessionKey: string): number {
    const row = this.db
      .query("SELECT COUNT(*) AS n FROM cron_jobs WHERE state = 'active' AND session_key = ?")
      .get(sessionKey) as { n: number };
    return row.n;
  }

  /** Deletes a job; with `sessionKey`, only that session's. True when a row went. */
  remove(id: string, sessionKey?: string): boolean {
    const result =
      sessionKey === undefined
        ? this.db.query("DELETE FROM cron_jobs WHERE id = ?").run(id)
        : this.db
            .query("DELETE FROM cron_jobs WHERE id = ? AND session_key = ?")
            .run(id, sessionKey);
    return result.changes === 1;
  }

  due(now: number): CronJob[] {
    const rows = this.db
      .query(
        "SELECT * FROM cron_jobs WHERE state = 'active' AND next_run_at <= ? ORDER BY next_run_at",
      )
      .all(now) as JobRow[];
    return rows.map(toJob);
  }

  nextDueAt(): number | undefined {
    const row = this.db
      .query("SELECT MIN(next_run_at) AS at FROM cron_jobs WHERE state = 'active'")
      .get() as { at: number | null };
    return row.at ?? undefined;
  }

  /**
   * Records the run of `job` due at its `nextRunAt` with `status` ("running" to fire it,
   * "missed" to skip it) and moves the job on to `next`. False when another process (or
   * an earlier pass) already did: then nothing may fire.
   */
  claim(
    job: CronJob,
    next: number | undefined,
    status: "running" | "missed",
    now: number,
    detail?: string,
  ): boolean {
    const scheduledFor = job.nextRunAt;
    if (scheduledFor === undefined) return false;
    return this.db.transaction(() => {
      const moved = this.db
        .query(
          "UPDATE cron_jobs SET next_run_at = ?, state = ? WHERE id = ? AND state = 'active' AND next_run_at = ?",
        )
        .run(next ?? null, next === undefined ? "done" : "active", job.id, scheduledFor);
      if (moved.changes !== 1) return false;
      const inserted = this.db
        .query(
          `INSERT INTO cron_runs (job_id, scheduled_for, started_at, finished_at, status, detail, text)
           VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (job_id, scheduled_for) DO NOTHING`,
        )
        .run(
          job.id,
          scheduledFor,
          now,
          status === "missed" ? now : null,
          status,
          detail ?? null,
          job.text,
        );
      if (inserted.changes !== 1) throw new ClawboxError("INTERNAL", "run already recorded");
      return true;
    })();
  }

  finish(
    jobId: string,
    scheduledFor: number,
    status: "ok" | "failed" | "interrupted",
    detail: string | undefined,
    now: number,
    delivered?: { state: DeliveryState; outboxIds?: number[] },
  ): void {
    this.db
      .query(
        "UPDATE cron_runs SET status = ?, detail = ?, finished_at = ?, delivery = ?, outbox_ids = ? WHERE job_id = ? AND scheduled_for = ?",
      )
      .run(
        status,
        detail ?? null,
        now,
        delivered?.state ?? null,
        delivered?.outboxIds?.length ? JSON.stringify(delivered.outboxIds) : null,
        jobId,
        scheduledFor,
      );
  }

  /**
   * Runs a killed process left in "running" become "interrupted"; returns every
   * interrupted run not yet retried (a shutdown mid-turn leaves them too).
   */
  takeInterrupted(now: number): CronRun[] {
    this.db
      .query(
        "UPDATE cron_runs SET status = 'interrupted', finished_at = ? WHERE status = 'running'",
      )
      .run(now);
    const rows = this.db
      .query("SELECT * FROM cron_runs WHERE status = 'interrupted' AND attempts < 2")
      .all() as RunRow[];
    return rows.map(toRun);
  }

  /** Claims a retry of an interrupted run (once); false when it was already retried. */
  claimRetry(jobId: string, scheduledFor: number, now: number): boolean {
    const result = this.db
      .query(
        `UPDATE cron_runs SET status = 'running', attempts = attempts + 1, started_at = ?, finished_at = NULL
         WHERE job_id = ? AND scheduled_for = ? AND status = 'interrupted' AND attempts < 2`,
      )
      .run(now, jobId, scheduledFor);
    return result.changes === 1;
  }

  /** Latest runs first, each with the reminder's text (its job's for runs kept before it was stored). */
  runs(jobId?: string, limit = 50): CronRun[] {
    const select = `SELECT r.*, COALESCE(r.text, j.text) AS text FROM cron_runs r
       LEFT JOIN cron_jobs j ON j.id = r.job_id`;
    const rows = (
      jobId === undefined
        ? this.db.query(`${select} ORDER BY r.scheduled_for DESC LIMIT ?`).all(limit)
        : this.db
            .query(`${select} WHERE r.job_id = ? ORDER BY r.scheduled_for DESC LIMIT ?`)
            .all(jobId, limit)
    ) as RunRow[];
    return rows.map(toRun);
  }
}
