import type { Migration } from "./migration.ts";

/**
 * Scheduler (issue 14): cron reminders, their runs (one row per due time, so a run is
 * claimed once even across processes and restarts) and follow-ups.
 */
export const scheduler: Migration = {
  version: 430,
  name: "scheduler",
  sql: `
CREATE TABLE cron_jobs (
  id TEXT PRIMARY KEY,
  session_key TEXT NOT NULL,
  text TEXT NOT NULL,
  kind TEXT NOT NULL CHECK (kind IN ('at', 'every', 'cron')),
  expr TEXT NOT NULL,
  timezone TEXT,
  every_ms INTEGER,
  next_run_at INTEGER,
  state TEXT NOT NULL DEFAULT 'active' CHECK (state IN ('active', 'done')),
  origin TEXT NOT NULL,
  created_at INTEGER NOT NULL
);
CREATE INDEX cron_jobs_due ON cron_jobs (state, next_run_at);
CREATE INDEX cron_jobs_session ON cron_jobs (session_key);
CREATE TABLE cron_runs (
  id INTEGER PRIMARY KEY,
  job_id TEXT NOT NULL,
  scheduled_for INTEGER NOT NULL,
  started_at INTEGER NOT NULL,
  finished_at INTEGER,
  attempts INTEGER NOT NULL DEFAULT 1,
  status TEXT NOT NULL CHECK (status IN ('running', 'ok', 'failed', 'missed', 'interrupted')),
  detail TEXT,
  UNIQUE (job_id, scheduled_for)
);
CREATE TABLE followups (
  id INTEGER PRIMARY KEY,
  session_key TEXT NOT NULL,
  text TEXT NOT NULL,
  due_at INTEGER NOT NULL,
  state TEXT NOT NULL DEFAULT 'open' CHECK (state IN ('open', 'delivered', 'cancelled')),
  origin TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  delivered_at INTEGER
);
CREATE INDEX followups_due ON followups (state, due_at);
`,
};
