/**
 * The scheduler's sections: `heartbeat` (periodic HEARTBEAT.md check with a light
 * context), `cron` (reminders stored in SQLite) and `followups` (opt-in promises the
 * assistant made, delivered at the next heartbeat after they are due).
 */
import * as z from "zod";
import { toolFilter } from "./tools.ts";

const duration = z
  .string()
  .regex(
    /^\s*\d+(\.\d+)?\s*(ms|s|sec|m|min|h|hr|d)?\s*$/i,
    'a duration like "30m", "1h", "90s" or "2d"',
  );

const clock = z.string().regex(/^([01]\d|2[0-4]):[0-5]\d$/, 'a time of day like "08:00"');

/** `channel:direct|group:PEER`, e.g. "qq:direct:OPENID". */
export const deliveryTarget = z
  .string()
  .regex(/^[a-z0-9_-]+:(direct|group):\S+$/, 'a target like "qq:direct:OPENID"');

export const heartbeatSection = z
  .object({
    enabled: z.boolean().default(true),
    every: duration.default("30m"),
    /** Only within this window, in the agent time zone (`agent.timezone`); end may wrap past midnight. */
    activeHours: z.object({ start: clock, end: clock }).optional(),
    target: deliveryTarget.optional(),
    /**
     * The heartbeat run kind's stage of the tool policy. Default: look, don't touch —
     * no shell, SSH, new jobs, file writes or other sessions (also keeps the prompt light);
     * reading, memory search, cameras and MCP (Home Assistant) tools stay.
     */
    tools: toolFilter.default({
      deny: ["exec", "ssh_exec", "cron", "write", "edit", "apply_patch", "sessions_*"],
    }),
  })
  .prefault({});

export const cronSection = z
  .object({
    enabled: z.boolean().default(true),
    /** A job missed while the box was down runs once at start when younger than this. */
    catchUp: duration.default("1h"),
    maxJobsPerSession: z.number().int().min(1).max(1000).default(20),
    /** The cron run kind's stage of the tool policy. */
    tools: toolFilter.default({}),
  })
  .prefault({});

export const followupsSection = z
  .object({
    enabled: z.boolean().default(false),
    /** Follow-ups open at once; the oldest beyond it are dropped. */
    maxOpen: z.number().int().min(1).max(500).default(50),
  })
  .prefault({});

export type HeartbeatConfig = z.infer<typeof heartbeatSection>;
export type CronConfig = z.infer<typeof cronSection>;
export type FollowupsConfig = z.infer<typeof followupsSection>;
