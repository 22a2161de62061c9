/**
 * One `transcript` event as an agent turn (Home Assistant's side:
 * homeassistant/components/wyoming/conversation.py `_async_process`: one transcript
 * per connection, `context` = {conversation_id, device_id?, satellite_id?}). The room
 * (satellite, else device) picks the session through the session resolver; the
 * speaker is the household; the transcript's language goes to the model with the
 * speech rule (`describeSpeech`) and the reply is shaped for speech (`shapeForSpeech`).
 * Always one answer: `handled` with the text to say, `not-handled` with a plain reason
 * (HA says it as a failure), or `error` for a transcript that is not one.
 */
import type { Agent } from "../agent/index.ts";
import { describeSpeech, shapeForSpeech } from "../channels/index.ts";
import { z } from "../schema/index.ts";
import { type SessionResolver, senderAddress, voiceRoomName } from "../sessions/index.ts";
import { errorEvent, type WyomingEvent } from "./wyoming-event.ts";

/** Longest transcript answered (a spoken request is a sentence or two). */
export const MAX_TRANSCRIPT_CHARS = 2000;

/**
 * Ids and the language go into the model's turn stamp: HA sends ULIDs, entity and device
 * ids and BCP 47 tags, so anything with spaces, `;`, brackets or line breaks (a forged
 * "sender: …; owner: yes" in the stamp) is refused.
 */
const id = z
  .string()
  .check(
    z.minLength(1),
    z.maxLength(256),
    z.regex(/^[\w.:@-]+$/, "must be letters, digits and . _ : @ - only"),
  );
const languageTag = z
  .string()
  .check(
    z.maxLength(35),
    z.regex(
      /^[A-Za-z]{1,8}(?:[-_][A-Za-z0-9]{1,8})*$/,
      "must be a language tag such as en or zh-CN",
    ),
  );
const transcriptSchema = z.object({
  text: z.string(),
  language: z.optional(z.nullable(languageTag)),
  context: z.optional(
    z.nullable(
      z.looseObject({
        conversation_id: z.optional(z.nullable(id)),
        device_id: z.optional(z.nullable(id)),
        satellite_id: z.optional(z.nullable(id)),
      }),
    ),
  ),
});

export interface VoiceTurnDeps {
  agent: Pick<Agent, "chat">;
  sessions: SessionResolver;
}

export interface VoiceTurnResult {
  event: WyomingEvent;
  /** The room's short name ("" when the transcript was not one). */
  room: string;
  outcome: "handled" | "not-handled" | "error";
  detail?: string;
}

function notHandled(text: string, context: Record<string, unknown>): WyomingEvent {
  return { type: "not-handled", data: { text, context } };
}

export async function answerTranscript(
  data: Record<string, unknown>,
  deps: VoiceTurnDeps,
  signal: AbortSignal,
): Promise<VoiceTurnResult> {
  const parsed = transcriptSchema.safeParse(data);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const detail = `transcript: ${issue?.path.join(".") || "data"}: ${issue?.message ?? "invalid"}`;
    return { event: errorEvent("bad-transcript", detail), room: "", outcome: "error", detail };
  }
  const { text, language, context } = parsed.data;
  const room = voiceRoomName({
    satelliteId: context?.satellite_id ?? undefined,
    deviceId: context?.device_id ?? undefined,
    conversationId: context?.conversation_id ?? undefined,
  });
  const reply = context?.conversation_id ? { conversation_id: context.conversation_id } : {};
  const spoken = text.trim();
  if (spoken === "") {
    const detail = "I heard nothing to answer.";
    return { event: notHandled(detail, reply), room, outcome: "not-handled", detail };
  }
  if ([...spoken].length > MAX_TRANSCRIPT_CHARS) {
    const detail = `That request is too long for a voice request (at most ${MAX_TRANSCRIPT_CHARS} characters).`;
    return { event: notHandled(detail, reply), room, outcome: "not-handled", detail };
  }
  const result = await deps.agent.chat({
    sessionKey: deps.sessions.forMessage({
      channel: "wyoming",
      chatType: "direct",
      senderId: room,
    }),
    text: spoken,
    channel: "wyoming",
    chatType: "direct",
    senderId: senderAddress("wyoming", room),
    senderName: room,
    ...(context?.conversation_id ? { messageId: context.conversation_id } : {}),
    capabilities: describeSpeech(language ?? undefined),
    // A room's session stays the household's: if the owner adopts the room (agent.owners)
    // its next turn starts a session of the owner's instead of being refused.
    foreignSession: "new-session",
    signal,
  });
  if (result.error) {
    const detail = shapeForSpeech(result.error.message, { language: language ?? undefined });
    return { event: notHandled(detail, reply), room, outcome: "not-handled", detail };
  }
  const said = result.silent
    ? ""
    : shapeForSpeech(result.reply, { language: language ?? undefined });
  return {
    event: { type: "handled", data: { text: said, context: reply } },
    room,
    outcome: "handled",
  };
}
