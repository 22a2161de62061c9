/**
 * Session tools: `session_status` (this session's model and usage), `sessions_list`
 * and `sessions_history`. A non-owner only ever sees its own session: other people's
 * conversations never leak through these tools.
 */
import { ClawboxError } from "../errors/index.ts";
import { type Message, messageText } from "../messages/index.ts";
import type { Store } from "../store/index.ts";
import { sessionUsage } from "./session-usage.ts";
import type { AgentTool } from "./tool.ts";
import { capText, errorOutput, textOutput } from "./tool-output.ts";

export function createSessionTools(store: Store): AgentTool[] {
  const sessionStatus: AgentTool = {
    name: "session_status",
    group: "sessions",
    description: "Show this session: id, key, model, message count and token/cost usage.",
    parameters: { type: "object", properties: {}, additionalProperties: false },
    async execute(_args, ctx) {
      const row = store.sessions.get(ctx.sessionId);
      if (!row)
        return errorOutput(new ClawboxError("SESSION_NOT_FOUND", `no session ${ctx.sessionId}`));
      const usage = sessionUsage(store, ctx.sessionId);
      const status = {
        sessionId: row.sessionId,
        sessionKey: row.sessionKey,
        model: row.model,
        compactions: row.compactionCount,
        entries: store.transcript.count(row.sessionId),
        usage,
      };
      return textOutput(JSON.stringify(status, null, 2), status);
    },
  };

  const sessionsList: AgentTool = {
    name: "sessions_list",
    group: "sessions",
    description: "List sessions (most recent first) with key, id, last update and message count.",
    parameters: {
      type: "object",
      properties: { limit: { type: "integer", minimum: 1, maximum: 200 } },
      additionalProperties: false,
    },
    async execute(args, ctx) {
      const limit = typeof args.limit === "number" ? args.limit : 20;
      const rows = store.sessions
        .list()
        .filter((row) => ctx.isOwner || row.sessionId === ctx.sessionId)
        .slice(0, limit)
        .map((row) => ({
          sessionKey: row.sessionKey,
          sessionId: row.sessionId,
          updatedAt: new Date(row.updatedAt).toISOString(),
          messages: row.messageCount,
        }));
      return textOutput(JSON.stringify(rows, null, 2), rows);
    },
  };

  const sessionsHistory: AgentTool = {
    name: "sessions_history",
    group: "sessions",
    description: "The last messages of a session (default: this one) as role: text lines.",
    parameters: {
      type: "object",
      properties: {
        session: { type: "string", description: "Session id or key" },
        limit: { type: "integer", minimum: 1, maximum: 100 },
      },
      additionalProperties: false,
    },
    async execute(args, ctx) {
      const wanted = typeof args.session === "string" ? args.session : ctx.sessionId;
      const row = store.sessions.find(wanted);
      if (!row || (!ctx.isOwner && row.sessionId !== ctx.sessionId)) {
        return errorOutput(
          new ClawboxError("SESSION_NOT_FOUND", `no session "${wanted}" visible to this sender`),
        );
      }
      const limit = typeof args.limit === "number" ? args.limit : 20;
      const lines = store.transcript
        .branch(row.sessionId, { fromLastCompaction: true })
        .flatMap((entry) => (entry.type === "message" ? [entry.message as Message] : []))
        .slice(-limit)
        .map((message) => `${message.role}: ${capText(messageText(message), 2000)}`);
      return textOutput(lines.join("\n") || "(no messages)");
    },
  };

  return [sessionStatus, sessionsList, sessionsHistory];
}
