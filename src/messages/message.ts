/**
 * pi-style message shapes shared by every area: the transcript stores them, the
 * context engine assembles them, providers translate them to and from the wire.
 * They are plain JSON so a transcript line can be written and read without mapping.
 */
export interface TextContent {
  type: "text";
  text: string;
}

export interface ImageContent {
  type: "image";
  /** base64 payload */
  data: string;
  mimeType: string;
}

export interface ThinkingContent {
  type: "thinking";
  thinking: string;
  signature?: string;
  /**
   * Anthropic `redacted_thinking`: the reasoning was encrypted by the service; `signature`
   * holds its opaque `data`, which must be sent back unchanged on the next request.
   */
  redacted?: boolean;
}

export interface ToolCall {
  type: "toolCall";
  id: string;
  name: string;
  arguments: Record<string, unknown>;
  /**
   * The reply hit the output-token limit while this call's arguments were streaming:
   * they are incomplete, the call is never run, and its error result tells the model so.
   */
  truncated?: boolean;
}

export interface Cost {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  total: number;
}

export interface Usage {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  totalTokens: number;
  cost?: Cost;
}

export type StopReason = "stop" | "length" | "toolUse" | "error" | "aborted";

export interface UserMessage {
  role: "user";
  content: string | (TextContent | ImageContent)[];
  timestamp: number;
}

export interface AssistantMessage {
  role: "assistant";
  content: (TextContent | ThinkingContent | ToolCall)[];
  api?: string;
  provider: string;
  model: string;
  usage: Usage;
  stopReason: StopReason;
  /** The technical error of a failed turn (provider details, config keys): for the log. */
  errorMessage?: string;
  /**
   * A failed turn's error in plain words, as the person was told it live; a transcript
   * shows this one, so the history reads as the live reply did (issue 38).
   */
  errorText?: string;
  timestamp: number;
}

export interface ToolResultMessage {
  role: "toolResult";
  toolCallId: string;
  toolName: string;
  content: (TextContent | ImageContent)[];
  details?: unknown;
  isError: boolean;
  timestamp: number;
}

export type Message = UserMessage | AssistantMessage | ToolResultMessage;

export function emptyUsage(): Usage {
  return { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0 };
}

/** The plain text of a message: text blocks joined, other blocks left out. */
export function messageText(message: Message): string {
  if (typeof message.content === "string") return message.content;
  const parts: string[] = [];
  for (const block of message.content) {
    if (block.type === "text") parts.push(block.text);
  }
  return parts.join("");
}
