/**
 * The `cron` tool (owner-only, SPEC §7): the agent adds, lists and removes reminders for
 * the session it is talking in. A reminder fires as a turn in that session and its
 * reply goes back to the chat it came from.
 */

import { ClawboxError } from "../errors/index.ts";
import { OWNER } from "../sessions/index.ts";
import type { AgentTool } from "../tools/index.ts";
import { errorOutput, textOutput } from "../tools/index.ts";
import { type CronJobs, describeJob } from "./cron-jobs.ts";
import { originFor } from "./origin.ts";

export function createCronTool(jobs: CronJobs, timezone?: string): AgentTool {
  return {
    name: "cron",
    group: "runtime",
    ownerOnly: true,
    description: [
      "Reminders and scheduled tasks for this chat. action=add with text and one of:",
      'at (ISO time like "2026-12-24T19:00" in the agent time zone, or "in 20 minutes"),',
      'every (a duration like "2h", at least 1 minute), or cron (5-field expression, optional timezone).',
      "When due, you get the text as a message here and your reply goes to this chat.",
      "action=list shows this chat's reminders; action=remove with id deletes one.",
    ].join(" "),
    parameters: {
      type: "object",
      properties: {
        action: { type: "string", enum: ["add", "list", "remove"] },
        text: { type: "string", description: "What to remind of or do when due" },
        at: { type: "string" },
        every: { type: "string" },
        cron: { type: "string" },
        timezone: { type: "string", description: "IANA time zone for at/cron" },
        id: { type: "string", description: "Job id for remove" },
      },
      required: ["action"],
      additionalProperties: false,
    },
    async execute(args, ctx) {
      try {
        if (args.action === "list") {
          const list = jobs.list(ctx.sessionKey);
          return textOutput(
            list.length === 0
              ? "No reminders in this chat."
              : list.map((job) => describeJob(job, timezone)).join("\n"),
          );
        }
        if (args.action === "remove") {
          const id = typeof args.id === "string" ? args.id : "";
          return jobs.remove(id, ctx.sessionKey)
            ? textOutput(`Removed reminder ${id}.`)
            : errorOutput(
                new ClawboxError(
                  "TOOL_FAILED",
                  `no reminder "${id}" in this chat (see action=list)`,
                ),
              );
        }
        // Reminders run only in the owner's own sessions (SPEC §9a), never in a group's.
        if (ctx.principal !== undefined && ctx.principal !== OWNER)
          return errorOutput(
            new ClawboxError(
              "TOOL_FAILED",
              "reminders can be set only in the owner's own chats (this session is not the owner's); ask in a direct chat",
            ),
          );
        const origin = originFor(ctx);
        const str = (key: string) =>
          typeof args[key] === "string" ? (args[key] as string) : undefined;
        const job = jobs.add({
          sessionKey: ctx.sessionKey,
          text: str("text") ?? "",
          origin,
          ...(str("at") !== undefined ? { at: str("at") } : {}),
          ...(str("every") !== undefined ? { every: str("every") } : {}),
          ...(str("cron") !== undefined ? { cron: str("cron") } : {}),
          ...(str("timezone") !== undefined ? { timezone: str("timezone") } : {}),
        });
        return textOutput(`Added reminder ${describeJob(job, timezone)}`, { id: job.id });
      } catch (error) {
        return errorOutput(error);
      }
    },
  };
}
