/**
 * `clawbox cron list|add|rm`: the owner's view of reminders. Jobs added here belong to a
 * CLI session (default the `clawbox chat` one) and fire there; a running `clawbox run`
 * picks them up within its check interval (30 s at most).
 */
import { ClawboxError } from "../../errors/index.ts";
import {
  CronStore,
  createScheduler,
  describeJob,
  describeSchedule,
  shownRunStatus,
  zonedTime,
} from "../../scheduler/index.ts";
import { CLI_SENDER } from "../../sessions/index.ts";
import type { Command } from "../command.ts";
import { EXIT } from "../exit-codes.ts";
import { sessionKeyArg } from "../find-session.ts";
import { parseWith } from "../parse-args.ts";

const LIST = {
  options: { json: { type: "boolean" }, runs: { type: "boolean" } },
  positionals: false,
} as const;
const ADD = {
  options: {
    json: { type: "boolean" },
    at: { type: "string" },
    every: { type: "string" },
    cron: { type: "string" },
    tz: { type: "string" },
    session: { type: "string" },
  },
  positionals: true,
} as const;
const RM = { options: { json: { type: "boolean" } }, positionals: true } as const;

export const cronCommand: Command = {
  name: "cron",
  args: { subcommands: { list: LIST, add: ADD, rm: RM } },
  usage: [
    "Usage: clawbox cron <list|add|rm> [options]",
    "  list [--runs] [--json]            active jobs (with --runs: the latest runs too)",
    '  add TEXT (--at WHEN | --every DURATION | --cron "EXPR") [--tz ZONE] [--session NAME] [--json]',
    '                                    WHEN: ISO time ("2026-12-24T19:00", agent time zone) or "in 20 minutes"',
    "                                    --session: a name or key, as chat --session takes it (default: the chat session)",
    "  rm ID [--json]                    remove a job",
  ].join("\n"),
  async run(ctx, args) {
    const [sub, ...rest] = args;
    const { config } = ctx.config();
    const store = ctx.store();
    const scheduler = createScheduler({
      config,
      store,
      workspace: ctx.resolvedPaths().workspace,
      logger: ctx.logger(),
    });
    const print = (json: boolean | undefined, data: unknown, text: string) =>
      ctx.stdout.write(json ? `${JSON.stringify(data)}\n` : `${text}\n`);
    if (sub === "list") {
      const { values } = parseWith(rest, LIST);
      const jobs = scheduler.jobs.list();
      const runs = values.runs ? new CronStore(store.db).runs() : undefined;
      const lines = jobs.map((job) => describeJob(job, config.agent.timezone));
      if (runs) {
        // Each run with its reminder's text and whether the platform accepted it.
        const { Outbox } = await import("../../channels/index.ts");
        const outbox = new Outbox(store.db);
        const zone = config.agent.timezone ?? Intl.DateTimeFormat().resolvedOptions().timeZone;
        lines.push(
          "runs:",
          ...runs.map((r) => {
            const shown = shownRunStatus(r, (ids) => outbox.statesOf(ids));
            const text = r.text === undefined ? "" : `  "${r.text}"`;
            return `${r.jobId}  ${zonedTime(r.scheduledFor, zone)}  ${shown.status}${text}${shown.detail ? `  ${shown.detail}` : ""}`;
          }),
        );
      }
      print(
        values.json,
        { jobs, ...(runs ? { runs } : {}) },
        lines.length > 0 ? lines.join("\n") : "no reminders",
      );
      return EXIT.ok;
    }
    if (sub === "add") {
      const { values, positionals } = parseWith(rest, ADD);
      const text = positionals.join(" ");
      const sessions = ctx.sessions();
      // The session `clawbox chat` continues (the main session with directSessionMode "main").
      const sessionKey =
        values.session !== undefined
          ? sessionKeyArg(ctx, "--session", values.session)
          : sessions.defaultSession("cli", sessions.isOwner(CLI_SENDER));
      try {
        const job = scheduler.jobs.add({
          sessionKey,
          text,
          origin: { channel: "cli", chatType: "direct", senderId: CLI_SENDER },
          ...(values.at !== undefined ? { at: values.at } : {}),
          ...(values.every !== undefined ? { every: values.every } : {}),
          ...(values.cron !== undefined ? { cron: values.cron } : {}),
          ...(values.tz !== undefined ? { timezone: values.tz } : {}),
        });
        print(values.json, job, `added ${describeJob(job, config.agent.timezone)}`);
        return EXIT.ok;
      } catch (error) {
        if (error instanceof ClawboxError && error.code === "TOOL_INVALID_ARGS")
          throw new ClawboxError("CLI_USAGE", error.message);
        throw error;
      }
    }
    const { values, positionals } = parseWith(rest, RM);
    const id = positionals[0];
    if (!id) throw new ClawboxError("CLI_USAGE", "rm needs a job ID (see clawbox cron list)");
    const job = new CronStore(store.db).get(id);
    if (!scheduler.jobs.remove(id))
      throw new ClawboxError("NOT_FOUND", `no reminder with id ${id}`, {
        hint: "see clawbox cron list",
      });
    print(
      values.json,
      { removed: id },
      `removed ${id}${job ? ` (${describeSchedule(job.schedule)})` : ""}`,
    );
    return EXIT.ok;
  },
};
