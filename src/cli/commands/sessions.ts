/** `clawbox sessions list|export|import|delete`: inspect and move transcripts (pi/OpenClaw v3 JSONL). */
import { readFileSync, writeFileSync } from "node:fs";
import { basename } from "node:path";
import { createSessionGate } from "../../agent/index.ts";
import { ClawboxError } from "../../errors/index.ts";
import { exportSessionJsonl, importSessionJsonl } from "../../store/index.ts";
import type { Command } from "../command.ts";
import { EXIT } from "../exit-codes.ts";
import { requireSession, sessionKeyArg } from "../find-session.ts";
import { parseWith } from "../parse-args.ts";

const LIST = { options: { json: { type: "boolean" } }, positionals: false } as const;
const EXPORT = {
  options: { output: { type: "string", short: "o" }, force: { type: "boolean" } },
  positionals: true,
} as const;
const IMPORT = {
  options: { key: { type: "string" }, "new-id": { type: "boolean" } },
  positionals: true,
} as const;
const DELETE = { options: {}, positionals: true } as const;

export const sessionsCommand: Command = {
  name: "sessions",
  args: { subcommands: { list: LIST, export: EXPORT, import: IMPORT, delete: DELETE } },
  usage: [
    "Usage: clawbox sessions <list|export|import|delete> [options]",
    "  list [--json]                        sessions, newest first, with message counts",
    "  export NAME [-o FILE [--force]]      write the transcript as JSONL (pi/OpenClaw v3);",
    "                                       an existing FILE is replaced only with --force",
    "  import FILE [--key NAME] [--new-id]  read a JSONL transcript into a new session",
    "                                       (keeps the exported key and compaction count;",
    "                                       --new-id stores a copy of a session that exists)",
    "  delete NAME                          delete a session and its transcript for good",
    "  NAME: a session id, a key, or a short name as chat --session takes it",
  ].join("\n"),
  async run(ctx, args) {
    const [sub, ...rest] = args;
    const store = ctx.store();
    if (sub === "list") {
      const { values } = parseWith(rest, LIST);
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
        return EXIT.ok;
      }
      if (sessions.length === 0) ctx.stdout.write("no sessions yet\n");
      for (const s of sessions) {
        ctx.stdout.write(
          `${s.sessionId}  ${s.sessionKey}  ${s.messageCount} messages  updated ${new Date(s.updatedAt).toISOString()}\n`,
        );
      }
      return EXIT.ok;
    }
    if (sub === "export") {
      const { values, positionals } = parseWith(rest, EXPORT);
      const id = positionals[0];
      if (!id) throw new ClawboxError("CLI_USAGE", "export needs a session id, key or name");
      const session = requireSession(ctx, id);
      const text = exportSessionJsonl(store, session.sessionId);
      if (!values.output) {
        ctx.stdout.write(text);
        return EXIT.ok;
      }
      try {
        // A transcript is the owner's: the file is theirs alone (an existing file keeps its mode).
        // Without --force the file must not exist yet ("wx": checked and created in one step).
        writeFileSync(values.output, text, { mode: 0o600, flag: values.force ? "w" : "wx" });
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (code === "EEXIST")
          throw new ClawboxError(
            "CLI_USAGE",
            `-o ${values.output}: the file exists; not overwritten`,
            {
              hint: "add --force to replace it, or choose another path",
            },
          );
        throw new ClawboxError(
          "CLI_USAGE",
          `-o ${values.output}: cannot write the file (${code === "ENOENT" ? "its folder does not exist" : (code ?? String(error))})`,
          { hint: "create the folder first or choose another path" },
        );
      }
      ctx.stderr.write(`exported ${session.sessionId} to ${values.output}\n`);
      return EXIT.ok;
    }
    if (sub === "import") {
      const { values, positionals } = parseWith(rest, IMPORT);
      const file = positionals[0];
      if (!file) throw new ClawboxError("CLI_USAGE", "import needs a JSONL file");
      let text: string;
      try {
        text = readFileSync(file, "utf8");
      } catch (error) {
        const missing = (error as NodeJS.ErrnoException).code === "ENOENT";
        throw new ClawboxError(
          missing ? "NOT_FOUND" : "TRANSCRIPT_INVALID",
          `${file}: ${missing ? "no such file" : "cannot read the file"}`,
          { cause: error },
        );
      }
      const sessions = ctx.sessions();
      const row = importSessionJsonl(store, text, {
        source: basename(file),
        ...(values.key ? { sessionKey: sessionKeyArg(ctx, "--key", values.key) } : {}),
        newId: values["new-id"] ?? false,
        keyForCopy: (sessionId) => sessions.importKey(sessionId),
      });
      ctx.stdout.write(
        `imported ${row.sessionId} as ${row.sessionKey} (${store.transcript.count(row.sessionId)} entries)\n`,
      );
      return EXIT.ok;
    }
    const { positionals } = parseWith(rest, DELETE);
    const id = positionals[0];
    if (!id) throw new ClawboxError("CLI_USAGE", "delete needs a session id, key or name");
    const session = requireSession(ctx, id);
    // Deleted while this process holds the session: a run elsewhere cannot be halfway in it.
    const gate = createSessionGate({ store, maxConcurrent: 1, logger: ctx.logger() });
    const { entries } = await gate.runExclusive(
      session.sessionKey,
      async () => store.sessions.delete(session.sessionId),
      { wait: false },
    );
    ctx.stdout.write(
      `deleted session ${session.sessionId} (${session.sessionKey}, ${entries} entries)\n`,
    );
    return EXIT.ok;
  },
};
