/**
 * Follow-up extraction (opt-in, `followups.enabled`): after an owner's turn whose reply
 * sounds like a promise for later, one small structured turn asks the model to list the
 * promises with their due times through a `record_followups` tool call. On the local
 * model a tool call is grammar-constrained JSON, so the answer always parses. The
 * extraction runs in its own fresh session with that one tool only, after the owner's
 * turn has been answered (never delaying it), one at a time.
 */
import type { ChatRequest, ChatResult } from "../agent/index.ts";
import { ClawboxError, errorMessage } from "../errors/index.ts";
import { OWNER, type SessionResolver } from "../sessions/index.ts";
import type { Store } from "../store/index.ts";
import type { Logger } from "../system/index.ts";
import type { AgentTool } from "../tools/index.ts";
import type { FollowupStore } from "./followup-store.ts";
import { type Origin, originFor } from "./origin.ts";
import { parseSchedule } from "./schedule.ts";
import type { TurnRunner } from "./scheduled-turn.ts";

/** Cheap gate before any model call: words that announce something for later. */
const PROMISE_CUES =
  /\b(i'll|i will|i'm going to|i am going to|let me check (again )?later|get back to you|remind you|check (again|back) (later|tonight|tomorrow))\b|我会|稍后|晚点|等会|明天|今晚|回头/i;
const TIME_CUES =
  /\b(later|tonight|tomorrow|this (morning|afternoon|evening)|in \d+\s*(minutes?|hours?|days?)|at \d{1,2}(:\d{2})?\s*(am|pm)?|next (week|hour))\b|明天|今晚|稍后|晚点|等会|\d+\s*(分钟|小时)后/i;

export function looksLikePromise(reply: string): boolean {
  return PROMISE_CUES.test(reply) && TIME_CUES.test(reply);
}

export function extractionPrompt(reply: string, now: number, timezone?: string): string {
  const local = new Date(now).toLocaleString("sv-SE", timezone ? { timeZone: timezone } : {});
  return [
    `Current time: ${local}${timezone ? ` (${timezone})` : ""}.`,
    "The assistant just sent the reply below. List every promise it makes to do something at a later time, by calling record_followups once.",
    'Each item: "text" (what to do, short) and "due" (an ISO time like "2026-12-01T21:00", or "in 2 hours"). Call it with an empty list when there is no such promise.',
    "",
    "Reply:",
    reply.slice(0, 2000),
  ].join("\n");
}

export interface FollowupExtractorDeps {
  agent: TurnRunner;
  store: FollowupStore;
  /** For a fresh extraction session each time (no history). */
  sessionStore: Store["sessions"];
  /** Whose turn it was (only the owner's own conversations get follow-ups) and the key. */
  sessions: SessionResolver;
  timezone?: string;
  logger: Logger;
  now?: () => number;
}

export interface FollowupExtractor {
  /** Looks at a finished turn; starts an extraction when it may hold a promise. Never throws. */
  observe(request: ChatRequest, result: ChatResult): void;
  /** Resolves when every started extraction has finished. */
  idle(): Promise<void>;
}

function recordTool(
  store: FollowupStore,
  session: string,
  origin: Origin,
  now: number,
  tz?: string,
): AgentTool {
  return {
    name: "record_followups",
    description: "Record the promises the assistant made for later, with their due times.",
    parameters: {
      type: "object",
      properties: {
        items: {
          type: "array",
          items: {
            type: "object",
            properties: { text: { type: "string" }, due: { type: "string" } },
            required: ["text", "due"],
          },
        },
      },
      required: ["items"],
    },
    async execute(args) {
      const items = Array.isArray(args.items) ? args.items : [];
      const saved: string[] = [];
      for (const item of items as { text?: unknown; due?: unknown }[]) {
        const text = typeof item.text === "string" ? item.text.trim() : "";
        if (!text || typeof item.due !== "string") continue;
        try {
          const { nextRunAt } = parseSchedule({ at: item.due }, now, tz);
          store.add({ sessionKey: session, text, dueAt: nextRunAt, origin }, now);
          saved.push(text);
        } catch (error) {
          if (!(error instanceof ClawboxError)) throw error;
        }
      }
      return { content: [{ type: "text", text: `recorded ${saved.length}` }] };
    },
  };
}

export function createFollowupExtractor(deps: FollowupExtractorDeps): FollowupExtractor {
  const now = deps.now ?? Date.now;
  let chain: Promise<void> = Promise.resolve();
  const sessionKey = deps.sessions.system("followups");
  return {
    observe(request, result) {
      if ((request.runKind ?? "interactive") !== "interactive") return;
      if (result.error || result.silent || !looksLikePromise(result.reply)) return;
      // Only the owner's own conversations: a promise made in a group or to a stranger is
      // not the owner's to be reminded of (and scheduled runs happen only in owner sessions).
      if (deps.sessions.principalOfTurn(request) !== OWNER) return;
      const origin = originFor(request);
      const at = now();
      chain = chain.then(async () => {
        try {
          deps.sessionStore.create({ sessionKey, chatType: "system", principal: OWNER });
          await deps.agent.chat({
            sessionKey,
            text: extractionPrompt(result.reply, at, deps.timezone),
            channel: "followups",
            chatType: "system",
            // On the owner's behalf: the extraction session is the owner's.
            ...(request.senderId ? { senderId: request.senderId } : {}),
            ...(request.authenticatedOwner ? { authenticatedOwner: true } : {}),
            runKind: "subagent",
            toolChoice: "required",
            onlyTools: [recordTool(deps.store, result.sessionKey, origin, at, deps.timezone)],
          });
        } catch (error) {
          deps.logger.warn("follow-up extraction failed", {
            error: errorMessage(error),
          });
        }
      });
    },
    idle: () => chain,
  };
}
