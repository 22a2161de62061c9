/**
 * Per-turn facts (channel, sender, direct/group, message id, reply target, time). They
 * change every turn, so they never enter the system prompt or the tool definitions: for
 * every model kind they lead the new user message as one stamp line, which is stored
 * with the message. Later turns replay the stamp byte for byte, so the whole request up
 * to the new message is a prefix a provider's cache (llama.cpp's KV cache, OpenAI's
 * automatic prefix cache, Anthropic's breakpoints) has already seen. The time is given
 * to the minute: no tool needs seconds, and the model learns the current time anyway.
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
  /** Something the model must know this turn, e.g. that Home Assistant is unreachable now. */
  notice?: string;
  /** ms since epoch */
  now: number;
  timezone?: string;
}

interface ZoneFormats {
  /** `2026-12-01 18:20` */
  local: Intl.DateTimeFormat;
  /** `Tue` */
  weekday: Intl.DateTimeFormat;
}

/** Formatters by zone: building one costs far more than using it (ICU), and zones are few. */
const formats = new Map<string, ZoneFormats | null>();
const MAX_ZONES = 16;

function formatsFor(zone: string): ZoneFormats | null {
  const known = formats.get(zone);
  if (known !== undefined) return known;
  let built: ZoneFormats | null;
  try {
    built = {
      local: new Intl.DateTimeFormat("sv-SE", {
        timeZone: zone,
        hourCycle: "h23",
        year: "numeric",
        month: "2-digit",
        day: "2-digit",
        hour: "2-digit",
        minute: "2-digit",
      }),
      weekday: new Intl.DateTimeFormat("en-US", { timeZone: zone, weekday: "short" }),
    };
  } catch {
    built = null;
  }
  if (formats.size >= MAX_ZONES) formats.clear();
  formats.set(zone, built);
  return built;
}

/** A valid IANA zone or UTC. */
export function safeTimezone(zone: string | undefined): string {
  return zone && formatsFor(zone) ? zone : "UTC";
}

/** `2026-12-01 18:20 Tue (Europe/Berlin)`: local time to the minute, weekday, zone. */
export function formatTurnTime(now: number, zone: string | undefined): string {
  const timeZone = safeTimezone(zone);
  const { local, weekday } = formatsFor(timeZone) as ZoneFormats;
  const date = new Date(now);
  return `${local.format(date)} ${weekday.format(date)} (${timeZone})`;
}

/** A value from a platform (a sender's display name): one line, and it cannot close the stamp. */
function plain(value: string): string {
  return value.replace(/[\r\n\t]+/g, " ").replace(/\]/g, ")");
}

function factLines(facts: TurnFacts): string[] {
  const sender = facts.senderName
    ? `${facts.senderName}${facts.senderId ? ` (${facts.senderId})` : ""}`
    : facts.senderId;
  const time = formatTurnTime(facts.now, facts.timezone);
  const received =
    facts.receivedAt !== undefined ? formatTurnTime(facts.receivedAt, facts.timezone) : time;
  return [
    `channel: ${facts.channel}`,
    `chat: ${facts.chatType}${facts.groupId ? ` ${facts.groupId}` : ""}`,
    ...(sender ? [`sender: ${sender}`] : []),
    ...(facts.messageId ? [`message_id: ${facts.messageId}`] : []),
    ...(facts.replyTo ? [`reply_to: ${facts.replyTo}`] : []),
    ...(facts.capabilities ? [`channel_can: ${facts.capabilities}`] : []),
    // A message that waited (a restart, a busy session) says when it was sent.
    ...(received !== time ? [`received: ${received}`] : []),
    ...(facts.notice ? [`notice: ${facts.notice}`] : []),
    `time: ${time}`,
  ].map(plain);
}

/** The stamp that leads the new user message: `[turn channel: qq; …; time: …]`. */
export function renderTurnPrefix(facts: TurnFacts): string {
  return `[turn ${factLines(facts).join("; ")}]`;
}
