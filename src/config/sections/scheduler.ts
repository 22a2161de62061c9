/**
 * The scheduler's sections: `heartbeat` (periodic HEARTBEAT.md check with a light
 * context), `cron` (reminders stored in SQLite) and `followups` (opt-in promises the
 * assistant made, delivered at the next heartbeat after they are due).
 */
import { z } from "../../schema/index.ts";
import { toolFilter } from "./tools.ts";

const duration = z
  .string()
  .check(
    z.regex(
      /^\s*\d+(\.\d+)?\s*(ms|s|sec|m|min|h|hr|d)?\s*$/i,
      'must be a duration like "30m", "1h", "90s" or "2d"',
    ),
  );

const clock = z
  .string()
  .check(z.regex(/^([01]\d|2[0-4]):[0-5]\d$/, 'must be a time of day like "08:00"'));

/** `channel:direct|group:PEER`, e.g. "qq:direct:OPENID". */
export const deliveryTarget = z
  .string()
  .check(z.regex(/^[a-z0-9_-]+:(direct|group):\S+$/, 'must be a target like "qq:direct:OPENID"'));

const enabledByDefault = z._default(z.boolean(), true);

export const heartbeatSection = z.prefault(
  z.object({
    enabled: enabledByDefault,
    every: z._default(duration, "30m"),
    /** Only within this window, in the agent time zone (`agent.timezone`); end may wrap past midnight. */
    activeHours: z.optional(z.object({ start: clock, end: clock })),
    target: z.optional(deliveryTarget),
    /**
     * The heartbeat run kind's stage of the tool policy. Default: look, don't touch —
     * no shell, SSH, new jobs, file writes or other sessions (also keeps the prompt light);
     * reading, memory search, cameras and MCP (Home Assistant) tools stay.
     */
    tools: z._default(toolFilter, {
      deny: ["exec", "ssh_exec", "cron", "write", "edit", "apply_patch", "sessions_*"],
    }),
  }),
  {},
);

export const cronSection = z.prefault(
  z.object({
    enabled: enabledByDefault,
    /** A job missed while the box was down runs once at start when younger than this. */
    catchUp: z._default(duration, "1h"),
    maxJobsPerSession: z._default(z.number().check(z.int(), z.minimum(1), z.maximum(1000)), 20),
    /** The cron run kind's stage of the tool policy. */
    tools: z._default(toolFilter, {}),
  }),
  {},
);

export const followupsSection = z.prefault(
  z.object({
    enabled: z._default(z.boolean(), false),
    /** Follow-ups open at once; the oldest beyond it are dropped. */
    maxOpen: z._default(z.number().check(z.int(), z.minimum(1), z.maximum(500)), 50),
  }),
  {},
);

export type HeartbeatConfig = z.infer<typeof heartbeatSection>;
export type CronConfig = z.infer<typeof cronSection>;
export type FollowupsConfig = z.infer<typeof followupsSection>;
