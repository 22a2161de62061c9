/**
 * Sessions: the list with counts, one session's transcript (its active branch, with
 * compaction summaries and tool results) shaped for display, and the JSONL export (the
 * same pi/OpenClaw v3 file `clawbox sessions export` writes).
 */
import type { Hono } from "hono";
import { ownText } from "../context/index.ts";
import { isClawboxError } from "../errors/index.ts";
import type { Message, TranscriptEntry } from "../messages/index.ts";
import { reminderTextOf } from "../scheduler/index.ts";
import { describePrincipal } from "../sessions/index.ts";
import { exportSessionJsonl, type SessionRow } from "../store/index.ts";
import { consoleSender, consoleSessionKey, defaultConsoleSession } from "./api-chat.ts";
import type { ConsoleDeps } from "./console-deps.ts";
import type { ConsoleEnv } from "./console-env.ts";
import { apiError } from "./json-body.ts";

/** Largest image sent back inline (base64 chars); bigger ones are named, not shown. */
const MAX_INLINE_IMAGE = 1_500_000;

export interface ShownEntry {
  id: string;
  type: string;
  timestamp: string;
  role?: string;
  text?: string;
  thinking?: string;
  toolCalls?: { id: string; name: string; args: unknown }[];
  toolName?: string;
  isError?: boolean;
  images?: { src?: string; mimeType: string; omitted?: string }[];
  summary?: string;
  tokensBefore?: number;
  error?: string;
  /** A user-role message the scheduler wrote (a reminder's prompt), not the person. */
  from?: "reminder";
}

function showMessage(base: ShownEntry, message: Message): ShownEntry {
  const shown: ShownEntry = { ...base, role: message.role };
  const blocks =
    typeof message.content === "string"
      ? [{ type: "text" as const, text: message.content }]
      : message.content;
  const text: string[] = [];
  const thinking: string[] = [];
  for (const block of blocks) {
    if (block.type === "text") text.push(block.text);
    else if (block.type === "thinking") thinking.push(block.thinking);
    else if (block.type === "toolCall") {
      shown.toolCalls = [
        ...(shown.toolCalls ?? []),
        { id: block.id, name: block.name, args: block.arguments },
      ];
    } else if (block.type === "image") {
      const image =
        block.data.length <= MAX_INLINE_IMAGE
          ? { src: `data:${block.mimeType};base64,${block.data}`, mimeType: block.mimeType }
          : {
              mimeType: block.mimeType,
              omitted: `${Math.round((block.data.length * 3) / 4 / 1024)} KB image not shown`,
            };
      shown.images = [...(shown.images ?? []), image];
    }
  }
  // A user message is stored with the prompt's lead (turn facts, a first-run block): show
  // what the person wrote.
  const joined = message.role === "user" ? ownText(text.join("")) : text.join("");
  if (joined.length > 0) shown.text = joined;
  // A reminder's prompt is shown as the reminder's own text, marked as the reminder's.
  const reminder = message.role === "user" ? reminderTextOf(joined) : undefined;
  if (reminder !== undefined) {
    shown.from = "reminder";
    shown.text = reminder;
  }
  if (thinking.length > 0) shown.thinking = thinking.join("\n");
  if (message.role === "toolResult") {
    shown.toolName = message.toolName;
    shown.isError = message.isError;
  }
  // A failed turn reads as it did live: the plain words it was stored with (turns stored
  // before those words were kept show the technical message).
  if (message.role === "assistant" && (message.errorText || message.errorMessage))
    shown.error = message.errorText || message.errorMessage;
  return shown;
}

export function showEntry(entry: TranscriptEntry): ShownEntry {
  const base: ShownEntry = { id: entry.id, type: entry.type, timestamp: entry.timestamp };
  if (entry.type === "message") return showMessage(base, entry.message);
  if (entry.type === "compaction") {
    return { ...base, summary: entry.summary, tokensBefore: entry.tokensBefore };
  }
  if (entry.type === "model_change") return { ...base, text: `${entry.provider}/${entry.modelId}` };
  return base;
}

/** A session named by id, key, or a short name (as `clawbox chat --session` takes it). */
export function findConsoleSession(deps: ConsoleDeps, text: string): SessionRow | undefined {
  const byId = deps.store.sessions.get(text);
  if (byId) return byId;
  try {
    return deps.store.sessions.byKey(consoleSessionKey(deps, text));
  } catch (error) {
    if (isClawboxError(error, "SESSION_KEY_INVALID")) return undefined;
    throw error;
  }
}

export function registerSessionRoutes(app: Hono<ConsoleEnv>, deps: ConsoleDeps): void {
  app.get("/console/api/sessions", (c) =>
    c.json({
      // The chat page's "default" conversation: a new tab shows its history (listed once).
      defaultSession: defaultConsoleSession(deps),
      sessions: deps.store.sessions.list().map((s) => ({
        sessionId: s.sessionId,
        sessionKey: s.sessionKey,
        // Whether the console may chat here (the owner's sessions): a stranger's, a group's,
        // the tokenless web's or MQTT's are shown read-only instead of failing on send (403).
        writable:
          deps.agent.checkSession?.({
            sessionKey: s.sessionKey,
            text: "",
            channel: "web",
            senderId: consoleSender(deps),
            chatType: "direct",
          }).ok ?? true,
        chatType: s.chatType,
        // Who it belongs to, in words ("the owner", "qq:…"): two rows with one key (a
        // stranger's session, then the owner's after pairing) are told apart by it.
        belongsTo: describePrincipal(deps.sessions.principalOfSession(s)),
        messageCount: s.messageCount,
        entryCount: s.entryCount,
        compactionCount: s.compactionCount,
        model: s.model,
        createdAt: s.createdAt,
        updatedAt: s.updatedAt,
      })),
    }),
  );

  app.get("/console/api/sessions/:id/transcript", (c) => {
    const session = findConsoleSession(deps, c.req.param("id"));
    if (!session) return apiError(c, 404, "SESSION_NOT_FOUND", "no such session");
    return c.json({
      sessionId: session.sessionId,
      sessionKey: session.sessionKey,
      entries: deps.store.transcript.branch(session.sessionId).map(showEntry),
    });
  });

  app.get("/console/api/sessions/:id/export", (c) => {
    const session = findConsoleSession(deps, c.req.param("id"));
    if (!session) return apiError(c, 404, "SESSION_NOT_FOUND", "no such session");
    c.header("Content-Type", "application/x-ndjson; charset=utf-8");
    c.header("Content-Disposition", `attachment; filename="${session.sessionId}.jsonl"`);
    return c.body(exportSessionJsonl(deps.store, session.sessionId));
  });
}
