/**
 * Per-turn facts (channel, sender, direct/group, message id, reply target, time). They
 * change every turn, so they never appear above the cache boundary: for cloud models
 * they form the system prompt's dynamic suffix, for local models they lead the user
 * message so the system prompt stays byte-identical and llama.cpp reuses its KV cache.
 */
export interface TurnFacts {
  channel: string;
  chatType: "direct" | "group" | "system";
  senderId?: string;
  senderName?: string;
  groupId?: string;
  messageId?: string;
  replyTo?: string;
  /** When the channel received the message, ms since epoch. */
  receivedAt?: number;
  /** What the channel can show (e.g. "plain text, max 2000 chars, up to 5 messages"). */
  capabilities?: string;
  /** ms since epoch */
  now: number;
  timezone?: string;
}

/** A valid IANA zone or UTC. */
export function safeTimezone(zone: string | undefined): string {
  if (!zone) return "UTC";
  try {
    new Intl.DateTimeFormat("en", { timeZone: zone });
    return zone;
  } catch {
    return "UTC";
  }
}

export function formatTurnTime(now: number, zone: string | undefined): string {
  const timeZone = safeTimezone(zone);
  const date = new Date(now);
  const local = date.toLocaleString("sv-SE", { timeZone, hour12: false });
  const weekday = date.toLocaleDateString("en-US", { timeZone, weekday: "short" });
  return `${local} ${weekday} (${timeZone})`;
}

function factLines(facts: TurnFacts): string[] {
  const sender = facts.senderName
    ? `${facts.senderName}${facts.senderId ? ` (${facts.senderId})` : ""}`
    : facts.senderId;
  return [
    `channel: ${facts.channel}`,
    `chat: ${facts.chatType}${facts.groupId ? ` ${facts.groupId}` : ""}`,
    ...(sender ? [`sender: ${sender}`] : []),
    ...(facts.messageId ? [`message_id: ${facts.messageId}`] : []),
    ...(facts.replyTo ? [`reply_to: ${facts.replyTo}`] : []),
    ...(facts.receivedAt !== undefined ? [`received_ms: ${facts.receivedAt}`] : []),
    ...(facts.capabilities ? [`channel_can: ${facts.capabilities}`] : []),
    `time: ${formatTurnTime(facts.now, facts.timezone)}`,
  ];
}

/** The dynamic suffix of a cloud model's system prompt. */
export function renderDynamicSection(facts: TurnFacts): string {
  return ["## Current turn", ...factLines(facts)].join("\n");
}

/** The block that leads a local model's user message. */
export function renderTurnPrefix(facts: TurnFacts): string {
  return `[turn ${factLines(facts).join("; ")}]`;
}
