/**
 * The shape of an executable tool. The model sees name, description and JSON-Schema
 * parameters (a ToolDefinition); the agent validates arguments against the schema
 * before `execute` runs. `execute` must not throw for expected failures: it returns
 * `isError: true` with a message the model can act on.
 */
import type { FileLimits } from "../config/index.ts";
import type { ImageContent, TextContent } from "../messages/index.ts";

export interface ToolContext {
  sessionId: string;
  sessionKey: string;
  /** Channel-qualified sender id, e.g. "cli", "qq:OPENID". */
  senderId?: string;
  isOwner: boolean;
  /**
   * Who the session belongs to ("owner", a stranger's sender id, "group:…"): tools that
   * read other sessions (transcript search) show only this principal's.
   */
  principal?: string;
  channel?: string;
  chatType?: "direct" | "group" | "system";
  groupId?: string;
  /** The call's id, for tools that correlate updates. */
  toolCallId?: string;
  /** Absolute workspace folder; file tools are confined to it. */
  workspace: string;
  /** Folders `read` may also open, read-only, for an owner (bundled and managed skills, the user guide). */
  readRoots?: string[];
  /** `tools.files`: the file tools' size and free-disk limits (default: DEFAULT_FILE_LIMITS). */
  fileLimits?: FileLimits;
  signal: AbortSignal;
  /** Streams partial output (tool_execution_update events). Must not throw. */
  onUpdate?: (partial: string) => void;
}

export interface ToolOutput {
  content: (TextContent | ImageContent)[];
  details?: unknown;
  isError?: boolean;
}

export interface AgentTool {
  name: string;
  description: string;
  /** JSON Schema of the arguments object. */
  parameters: Record<string, unknown>;
  /** Never offered to a sender who is not an owner (exec, ssh, cron, camera). */
  ownerOnly?: boolean;
  /** Group for policy profiles, e.g. "fs", "runtime", "sessions", "memory", "mcp". */
  group?: string;
  execute(args: Record<string, unknown>, ctx: ToolContext): Promise<ToolOutput>;
}
