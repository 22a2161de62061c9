/** `clawbox sessions list|export|import`: inspect and move transcripts (pi/OpenClaw v3 JSONL). */
import { readFileSync, writeFileSync } from "node:fs";
import { basename } from "node:path";
import { ClawboxError } from "../../errors/index.ts";
import { exportSessionJsonl, importSessionJsonl } from "../../store/index.ts";
import type { Command } from "../command.ts";
import { parseCommandArgs } from "../parse-args.ts";

export const sessionsCommand: Command = {
  name: "sessions",
  summary: "list, export or import sessions",
  usage: [
    "Usage: clawbox sessions <list|export|import> [options]",
    "  list [--json]               sessions, newest first, with message counts",
    "  export ID|KEY [-o FILE]     write the transcript as JSONL (pi/OpenClaw v3)",
    "  import FILE [--key KEY]     read a JSONL transcript into a new session",
  ].join("\n"),
  async run(ctx, args) {
    const [sub, ...rest] = args;
    const store = ctx.store();
    if (sub === "list") {
      const { values } = parseCommandArgs(rest, { json: { type: "boolean" } }, false);
      const sessions = store.sessions.list();
      if (values.json) {
        const rows = sessions.map((s) => ({
          sessionId: s.sessionId,
          sessionKey: s.sessionKey,
          chatType: s.chatType,
          messageCount: s.messageCount,
          entryCount: s.entryCount,
          compactionCount: s.compactionCount,
          model: s.model,
          createdAt: new Date(s.createdAt).toISOString(),
          updatedAt: new Date(s.updatedAt).toISOString(),
        }));
        ctx.stdout.write(`${JSON.stringify(rows, null, 2)}\n`);
        return 0;
      }
      if (sessions.length === 0) ctx.stdout.write("no sessions yet\n");
      for (const s of sessions) {
        ctx.stdout.write(
          `${s.sessionId}  ${s.sessionKey}  ${s.messageCount} messages  updated ${new Date(s.updatedAt).toISOString()}\n`,
        );
      }
      return 0;
    }
    if (sub === "export") {
      const { values, positionals } = parseCommandArgs(rest, {
        output: { type: "string", short: "o" },
      });
      const id = positionals[0];
      if (!id) throw new ClawboxError("CLI_USAGE", "export needs a session id or key");
      const session = store.sessions.find(id);
      if (!session) {
        throw new ClawboxError("SESSION_NOT_FOUND", `no session with id or key ${id}`, {
          hint: 'list sessions with "clawbox sessions list"',
        });
      }
      const text = exportSessionJsonl(store, session.sessionId);
      if (values.output) writeFileSync(values.output, text);
      else ctx.stdout.write(text);
      return 0;
    }
    if (sub === "import") {
      const { values, positionals } = parseCommandArgs(rest, { key: { type: "string" } });
      const file = positionals[0];
      if (!file) throw new ClawboxError("CLI_USAGE", "import needs a JSONL file");
      let text: string;
      try {
        text = readFileSync(file, "utf8");
      } catch (error) {
        throw new ClawboxError("TRANSCRIPT_INVALID", `${file}: cannot read the file`, {
          cause: error,
        });
      }
      const row = importSessionJsonl(store, text, {
        source: basename(file),
        ...(values.key ? { sessionKey: values.key } : {}),
      });
      ctx.stdout.write(
        `imported ${row.sessionId} as ${row.sessionKey} (${store.transcript.count(row.sessionId)} entries)\n`,
      );
      return 0;
    }
    throw new ClawboxError("CLI_USAGE", `unknown subcommand "${sub ?? ""}"`);
  },
};
