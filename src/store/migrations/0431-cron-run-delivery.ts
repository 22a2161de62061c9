/**
 * Reminder runs say what they were for and whether the person got them (issue 38): the
 * reminder's text as it was when it ran (the job may be removed since), how its message
 * went out (`sent`, `queued`, `stored`, `kept`) and, for a channel peer, the outbox rows
 * that carry it, so "sent" is said only once the platform accepted every one.
 */
import type { Migration } from "./migration.ts";

export const cronRunDelivery: Migration = {
  version: 431,
  name: "cron run delivery",
  sql: `
ALTER TABLE cron_runs ADD COLUMN text TEXT;
ALTER TABLE cron_runs ADD COLUMN delivery TEXT;
ALTER TABLE cron_runs ADD COLUMN outbox_ids TEXT;
`,
};
