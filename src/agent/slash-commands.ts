/**
 * Chat commands handled by the agent itself, whatever the channel: /new (a fresh
 * session under the same key), /status, /compact and /context list|detail. They never
 * reach the model and never add entries to the transcript (except what /compact's
 * engine writes).
 */
import type { ContextEngine } from "../context/index.ts";
import { toClawboxError } from "../errors/index.ts";
import type { Provider, ToolDefinition } from "../providers/index.ts";
import type { SessionRow, Store } from "../store/index.ts";
import type { ChatRequest, ChatResult } from "./chat-request.ts";
import { contextCommandReply } from "./context-report.ts";
import { statusReport } from "./status-report.ts";

export type SlashCommand = "new" | "status" | "compact" | "context";

/** Every command name the agent answers itself (for help texts and refusals). */
export const SLASH_COMMAND_NAMES: readonly string[] = [
  "new",
  "reset",
  "status",
  "compact",
  "context",
];

/** The command in `text`, or undefined when it is an ordinary message. */
export function parseSlashCommand(
  text: string,
): { command: SlashCommand; args: string[] } | undefined {
  const match = /^\/(new|reset|status|compact|context)(?:\s+(.*))?$/i.exec(text.trim());
  if (!match) return undefined;
  const name = (match[1] ?? "").toLowerCase();
  return {
    command: name === "reset" ? "new" : (name as SlashCommand),
    args: (match[2] ?? "").split(/\s+/).filter(Boolean),
  };
}

export interface SlashContext {
  store: Store;
  session(): SessionRow;
  newSession(): SessionRow;
  engine(): Promise<ContextEngine>;
  primary(): Provider | undefined;
  chainIds(): string[];
  /** Tool definitions this sender would be offered by `provider` (for /context). */
  toolDefinitions(provider: Provider): ToolDefinition[];
  /** Which Home Assistant tools a local model got last turn, and why (`/context`). */
  homeAssistantChoice(): string | undefined;
  /**
   * The owner's private files (MEMORY.md, USER.md) are in this sender's prompt: an owner
   * in a direct chat. Otherwise /context reports the prompt without them and shows no
   * absolute paths (SPEC §9a: a stranger learns nothing of the owner's files).
   */
  privateFiles: boolean;
  request: ChatRequest;
}

const reply = (session: SessionRow, text: string): ChatResult => ({
  sessionId: session.sessionId,
  sessionKey: session.sessionKey,
  reply: text,
  silent: false,
});

export async function runSlashCommand(
  command: SlashCommand,
  args: string[],
  ctx: SlashContext,
): Promise<ChatResult> {
  if (command === "new") {
    const session = ctx.newSession();
    return reply(
      session,
      "Started a new session. Earlier messages are kept in the history but no longer in context.",
    );
  }
  const session = ctx.session();
  if (command === "status") return reply(session, statusReport(ctx.store, session, ctx.chainIds()));
  const provider = ctx.primary();
  if (!provider) {
    return {
      ...reply(session, "No model is configured, so there is nothing to compact or report."),
      error: { code: "MODEL_NOT_FOUND", message: "no model is configured" },
    };
  }
  try {
    const engine = await ctx.engine();
    if (command === "compact") {
      const result = await engine.compact({
        session,
        provider,
        reason: "manual",
        signal: ctx.request.signal,
        ...(args.length > 0 ? { instructions: args.join(" ") } : {}),
      });
      const text = result.compacted
        ? `Compacted: ${result.tokensBefore ?? "?"} → ${result.tokensAfter ?? "?"} tokens.`
        : `Nothing to compact${result.reason ? ` (${result.reason})` : ""}.`;
      return reply(ctx.store.sessions.require(session.sessionId), text);
    }
    // Read first: the definitions below are this command's own, not the last turn's.
    const house = ctx.homeAssistantChoice();
    const report = await contextCommandReply(
      engine,
      session,
      provider,
      ctx.request,
      args[0] === "detail",
      ctx.toolDefinitions(provider),
      ctx.privateFiles,
    );
    return reply(session, house ? `${report}\n\n${house}` : report);
  } catch (error) {
    const classified = toClawboxError(error);
    return {
      ...reply(session, `/${command} failed: ${classified.message}`),
      error: { code: classified.code, message: classified.message },
    };
  }
}
