/**
 * The Reminders page: the `clawbox cron` and `clawbox followups` data. Lists the active
 * reminders with their next run and where they go, the latest runs with their outcome,
 * and the open follow-ups; adds a reminder ("in 20 minutes", a time, every day at a
 * time, an interval, or a cron expression with a time zone) for the console's own
 * conversation or for an owner's chat on QQ or WeCom; removes reminders and follow-ups.
 * A reminder runs as a turn in the conversation it was made for, on behalf of that
 * owner (owner rights are checked again when it fires), and its reply goes there.
 * Jobs go through the running scheduler, so a new one is planned at once.
 */
import type { Hono } from "hono";
import { Outbox, ownerTargets } from "../channels/index.ts";
import { toClawboxError } from "../errors/index.ts";
import {
  CronStore,
  describeSchedule,
  FollowupStore,
  jobZone,
  type Origin,
  shownRunStatus,
  zonedTime,
} from "../scheduler/index.ts";
import { z } from "../schema/index.ts";
import { consoleSender, defaultConsoleSession } from "./api-chat.ts";
import type { ConsoleDeps } from "./console-deps.ts";
import type { ConsoleEnv } from "./console-env.ts";
import { apiError, readBody } from "./json-body.ts";

const addBody = z.object({
  text: z.string().check(z.minLength(1), z.maxLength(2000)),
  /** "in": a duration ("20 minutes"); "at": an ISO time; "daily": "HH:MM"; "every": a duration; "cron": 5 fields. */
  kind: z.enum(["in", "at", "daily", "every", "cron"]),
  value: z.string().check(z.minLength(1), z.maxLength(200)),
  timezone: z.optional(z.string().check(z.maxLength(80))),
  /** A target's `value` from GET (default: this console's conversation). */
  target: z.optional(z.string().check(z.maxLength(300))),
});

interface Target {
  value: string;
  label: string;
  sessionKey: string;
  origin: Origin;
}

/** "07:30" → cron "30 7 * * *". */
function dailyCron(value: string): string | undefined {
  const match = /^(\d{1,2})(?::(\d{2}))?$/.exec(value.trim());
  if (!match) return undefined;
  const hour = Number(match[1]);
  const minute = Number(match[2] ?? "0");
  return hour < 24 && minute < 60 ? `${minute} ${hour} * * *` : undefined;
}

export function registerReminderRoutes(app: Hono<ConsoleEnv>, deps: ConsoleDeps): void {
  const cronStore = new CronStore(deps.store.db);
  const followups = (): FollowupStore =>
    deps.scheduler?.followups ?? new FollowupStore(deps.store.db, deps.config.followups.maxOpen);

  /** Where a reminder can go: this console, and every owner's chat on an enabled channel. */
  const targets = (): Target[] => {
    const { agent } = deps.config;
    const own: Target = {
      value: "console",
      label: "this console (web owner conversation)",
      sessionKey: defaultConsoleSession(deps),
      origin: { channel: "web", chatType: "direct", senderId: consoleSender(deps) },
    };
    const chats = agent.owners.flatMap((owner) =>
      ownerTargets(deps.config.channels, owner).map(
        (t): Target => ({
          value: `${t.channel}:${t.peerId}`,
          label: `${owner} on ${t.channel}`,
          // The session their own messages on that channel go to.
          sessionKey: deps.sessions.forMessage({
            channel: t.channel,
            chatType: "direct",
            senderId: t.peerId,
          }),
          origin: { channel: t.channel, chatType: "direct", peerId: t.peerId, senderId: owner },
        }),
      ),
    );
    return [own, ...chats];
  };

  const where = (origin: Origin) =>
    origin.peerId ? `${origin.channel} ${origin.peerId}` : `${origin.channel} conversation`;

  app.get("/console/api/reminders", (c) => {
    const jobs = deps.scheduler?.jobs.list() ?? cronStore.list();
    const timezone = deps.config.agent.timezone ?? Intl.DateTimeFormat().resolvedOptions().timeZone;
    const outbox = new Outbox(deps.store.db);
    return c.json({
      timezone,
      targets: targets().map(({ value, label }) => ({ value, label })),
      jobs: jobs.map((job) => ({
        id: job.id,
        text: job.text,
        schedule: describeSchedule(job.schedule),
        nextRunAt: job.nextRunAt ?? null,
        // One time in the job's zone, naming it (as `clawbox cron list` writes it).
        next: job.nextRunAt === undefined ? null : zonedTime(job.nextRunAt, jobZone(job, timezone)),
        where: where(job.origin),
        sessionKey: job.sessionKey,
      })),
      // Each run names its reminder and says "sent" only once the platform accepted it.
      runs: cronStore.runs(undefined, 20).map((run) => {
        const shown = shownRunStatus(run, (ids) => outbox.statesOf(ids));
        return {
          jobId: run.jobId,
          text: run.text ?? null,
          scheduledFor: run.scheduledFor,
          at: zonedTime(run.scheduledFor, timezone),
          status: shown.status,
          detail: shown.detail ?? null,
        };
      }),
      followups: followups()
        .list()
        .map((f) => ({
          id: f.id,
          text: f.text,
          dueAt: f.dueAt,
          due: zonedTime(f.dueAt, timezone),
          where: where(f.origin),
        })),
    });
  });

  app.post("/console/api/reminders", async (c) => {
    const body = await readBody(c, addBody);
    if (!body.ok) return body.response;
    const { text, kind, value, timezone, target } = body.value;
    const chosen = targets().find((t) => t.value === (target ?? "console"));
    if (!chosen)
      return apiError(c, 400, "HTTP_BAD_REQUEST", `target: ${target} is not an owner's chat`);
    const cron = kind === "daily" ? dailyCron(value) : kind === "cron" ? value : undefined;
    if (kind === "daily" && !cron)
      return apiError(c, 400, "HTTP_BAD_REQUEST", `time: "${value}" is not a time like 07:00`);
    if (!deps.scheduler) return apiError(c, 503, "INTERNAL", "the scheduler is not running");
    try {
      const job = deps.scheduler.jobs.add({
        sessionKey: chosen.sessionKey,
        text,
        origin: chosen.origin,
        ...(kind === "in" ? { at: `in ${value.replace(/^in\s+/i, "")}` } : {}),
        ...(kind === "at" ? { at: value } : {}),
        ...(kind === "every" ? { every: value } : {}),
        ...(cron ? { cron } : {}),
        ...(cron && timezone ? { timezone } : {}),
      });
      deps.logger.info("reminder added from the console", { id: job.id, where: chosen.label });
      return c.json({
        id: job.id,
        nextRunAt: job.nextRunAt ?? null,
        next:
          job.nextRunAt === undefined
            ? null
            : zonedTime(job.nextRunAt, jobZone(job, deps.config.agent.timezone)),
        schedule: describeSchedule(job.schedule),
      });
    } catch (error) {
      const failure = toClawboxError(error);
      // The scheduler names its own argument ("at: not a duration"); the page's field is "When".
      const said = failure.message.replace(/^(at|every|cron): /, "When: ");
      return apiError(c, 400, failure.code, said);
    }
  });

  app.post("/console/api/reminders/:id/remove", (c) => {
    const id = c.req.param("id");
    const removed = deps.scheduler ? deps.scheduler.jobs.remove(id) : cronStore.remove(id);
    if (!removed) return apiError(c, 404, "NOT_FOUND", `no reminder with id ${id}`);
    return c.json({ removed: id });
  });

  app.post("/console/api/followups/:id/remove", (c) => {
    const id = Number(c.req.param("id"));
    if (!Number.isInteger(id) || !followups().cancel(id))
      return apiError(c, 404, "NOT_FOUND", `no open follow-up with id ${c.req.param("id")}`);
    return c.json({ cancelled: id });
  });
}
