/**
 * Renders a request into pieces for a local model, marked up with the model's own chat
 * template (chat-template.ts). Pieces are tokenized one by one and concatenated, so a piece always becomes the same tokens whatever follows it:
 * the stable system-prompt prefix comes first and nothing per-turn is placed before it,
 * which keeps the KV-cache prefix valid from turn to turn. Assistant messages the model
 * generated itself are rendered from the exact tokens it produced (see `assistantKey`).
 */
import type { AssistantMessage, Message } from "../../messages/index.ts";
import type { ChatTemplate, ProviderRequest, ToolDefinition } from "../provider.ts";

export type PromptPiece =
  /**
   * Chat markup: special tokens such as <|im_start|> or <|eot_id|> are parsed as such.
   * `prefix`: part of the stable prefix (template start, stable system prompt, tools),
   * the same for every session with this prompt, so it is evaluated once and shared.
   */
  | { kind: "markup"; text: string; prefix?: true }
  /** Content: tokenized as plain text, so it cannot forge chat markup. */
  | { kind: "text"; text: string; prefix?: true }
  /** Body of an assistant message; `key` finds the tokens it was generated as. */
  | { kind: "assistant"; key: string; text: string };

type Turn = "system" | "user" | "assistant";

/**
 * Pieces of the whole prompt, ending with the header of the reply to generate. The
 * template's markup goes between turns; where the history has two user (or two
 * assistant) messages in a row, the template's own user→user markup (or an empty
 * user turn) separates them, so every template sees the alternation it expects.
 */
export function renderPrompt(
  request: ProviderRequest,
  jsonMode: boolean,
  template: ChatTemplate,
): PromptPiece[] {
  const boundary = request.cacheBoundary ?? request.systemPrompt.length;
  const stable = request.systemPrompt.slice(0, boundary);
  const dynamic = request.systemPrompt.slice(boundary);
  const pieces: PromptPiece[] = [
    { kind: "markup", text: template.start, prefix: true },
    { kind: "text", text: stable, prefix: true },
  ];
  if (jsonMode && request.tools.length > 0)
    pieces.push({ kind: "text", text: toolsSection(request.tools), prefix: true });
  pieces.push(textPiece(dynamic));
  let previous: Turn = "system";
  for (const message of request.messages) {
    const turn: Turn = message.role === "assistant" ? "assistant" : "user";
    pieces.push(...between(template, previous, turn).map(markupPiece), renderMessage(message));
    previous = turn;
  }
  pieces.push(...between(template, previous, "reply").map(markupPiece));
  return pieces.filter((piece) => piece.kind === "assistant" || piece.text !== "");
}

/** Markup from the end of a `from` turn to the start of a `to` turn. */
function between(template: ChatTemplate, from: Turn, to: Turn | "reply"): string[] {
  if (from === "system") {
    if (to === "user") return [template.systemToUser];
    // No user message yet: an empty user turn keeps the roles alternating.
    return [template.systemToUser, to === "reply" ? template.replyStart : template.userToAssistant];
  }
  if (from === "user") {
    if (to === "user") return [template.userToUser];
    return [to === "reply" ? template.replyStart : template.userToAssistant];
  }
  if (to === "user") return [template.assistantToUser];
  return [
    template.assistantToUser,
    to === "reply" ? template.replyStart : template.userToAssistant,
  ];
}

/** Key under which the tokens generated for a message are remembered (content alone can repeat). */
export function assistantKey(message: Pick<AssistantMessage, "content" | "timestamp">): string {
  const content = message.content.filter((block) => block.type !== "thinking");
  return `${message.timestamp}:${JSON.stringify(content)}`;
}

function renderMessage(message: Message): PromptPiece {
  if (message.role === "user") {
    const text =
      typeof message.content === "string"
        ? message.content
        : message.content.map((block) => (block.type === "text" ? block.text : "[image]")).join("");
    return { kind: "text", text };
  }
  if (message.role === "toolResult") {
    const text = message.content
      .map((block) => (block.type === "text" ? block.text : "[image]"))
      .join("");
    return { kind: "text", text: toolResponseText(message.toolName, message.isError, text) };
  }
  return { kind: "assistant", key: assistantKey(message), text: assistantText(message) };
}

/** A tool result as the local model reads it (prompt-overhead.ts measures this same text). */
export function toolResponseText(name: string, isError: boolean, content: string): string {
  return `<tool_response>\n${JSON.stringify({ name, isError, content })}\n</tool_response>`;
}

function markupPiece(value: string): PromptPiece {
  return { kind: "markup", text: value };
}

function textPiece(value: string): PromptPiece {
  return { kind: "text", text: value };
}

/** How an assistant message not generated here is shown to the model. */
function assistantText(message: AssistantMessage): string {
  const parts: string[] = [];
  for (const block of message.content) {
    if (block.type === "text" && block.text !== "") parts.push(block.text);
    if (block.type === "toolCall") {
      parts.push(
        JSON.stringify({ type: "toolCall", name: block.name, arguments: block.arguments }),
      );
    }
  }
  return parts.join("\n");
}

export function toolsSection(tools: ToolDefinition[]): string {
  const lines = tools.map((tool) =>
    JSON.stringify({ name: tool.name, description: tool.description, parameters: tool.parameters }),
  );
  return [
    "\n\n# Tools",
    'Reply with one JSON object: {"type":"toolCall","name":"<tool>","arguments":{...}} to call a tool,',
    'or {"type":"text","text":"<answer>"} to answer.',
    "<tools>",
    ...lines,
    "</tools>\n",
  ].join("\n");
}
