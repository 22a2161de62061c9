/**
 * The contract between the channel framework and one messaging platform (QQ, WeCom…).
 * An adapter only speaks its platform's wire protocol: it hands every inbound message
 * to the host (which stores, dedupes, checks access and dispatches to the agent) and
 * sends the outbox items the host gives it. It never talks to the agent or the store.
 */
import type { Logger } from "../system/index.ts";

export type ChannelChatType = "direct" | "group";

/** What a platform can show and how often the bot may answer one message. */
export interface ChannelCapabilities {
  /** Replies are rendered as markdown (else plain text: markdown syntax is removed). */
  markdown: boolean;
  /** Longest text one platform message may carry, in characters. */
  maxLength: number;
  /** Also at most this many UTF-8 bytes per message, for platforms that count bytes (WeCom). */
  maxBytes?: number;
  /** Messages one inbound message may get in reply (QQ passive replies: 5). */
  maxRepliesPerMessage: number;
  /** How long after an inbound message a reply to it is still accepted, per chat type. */
  replyWindowMs: Record<ChannelChatType, number>;
  /**
   * True when resending the same outbox item (same reply_to and seq) cannot show the
   * user a second copy (QQ dedupes by msg_id + msg_seq). Then a send interrupted by a
   * crash is retried after the restart; otherwise it is marked failed, never resent.
   */
  idempotentReplies: boolean;
  /**
   * Seconds within which the platform drops a repeat of the same send request when the
   * send asks for it (WeCom's `enable_duplicate_check` and `duplicate_check_interval`:
   * "the same content (request JSON) within the interval is not received twice"). A send
   * that asked, interrupted by a crash, is resent after the restart while the window is
   * open: the person sees it once whether or not the first attempt arrived.
   */
  duplicateCheckSeconds?: number;
  /** The platform can carry images the assistant sends. */
  images: boolean;
  /**
   * Tag the assistant wraps an image in (`<qqimg>PATH_OR_URL</qqimg>`): each one is cut
   * out of the text and sent as its own outbox item, containing only the tag.
   */
  imageTag?: string;
}

export interface InboundAttachment {
  kind: "image" | "voice" | "file" | "video";
  url?: string;
  name?: string;
  contentType?: string;
  size?: number;
  /** Platform transcript of a voice message (QQ `asr_refer_text`, WeCom `Recognition`). */
  transcript?: string;
  /** Platform media handle fetched through the adapter's `fetchMedia` (WeCom MediaId). */
  mediaId?: string;
  /** Per-message key of encrypted media, decrypted by the adapter's `fetchMedia` (WeCom bot). */
  aesKey?: string;
}

/** One platform message as the adapter parsed it. */
export interface InboundMessage {
  channel: string;
  /** The platform's message id: the dedupe key and the passive-reply handle. */
  messageId: string;
  chatType: ChannelChatType;
  /** Platform sender id (QQ user_openid / member_openid). */
  senderId: string;
  senderName?: string;
  /** Group id for group chats (QQ group_openid). */
  groupId?: string;
  text: string;
  /** The bot was @-mentioned (group messages). */
  mentioned: boolean;
  /** Platform timestamp of the message, ms since epoch (the reply window starts here). */
  sentAt: number;
  attachments: InboundAttachment[];
}

/** Where a reply goes: a direct peer or a group. */
export interface ChannelTarget {
  channel: string;
  chatType: ChannelChatType;
  /** User id for direct chats, group id for groups. */
  peerId: string;
}

/** One stored outbound message as the adapter must send it. */
export interface OutboxItem extends ChannelTarget {
  id: number;
  /** Platform message id answered (passive reply), undefined for proactive messages. */
  replyTo?: string;
  /** 1-based part number among the replies to `replyTo` (QQ msg_seq). */
  seq: number;
  text: string;
  /** Send attempts so far, including this one. */
  attempts: number;
  /**
   * Ask the platform to drop a repeat of this exact send (`duplicateCheckSeconds`): set
   * when no identical text went to this peer inside the window, so a reply that merely
   * repeats an earlier one ("Done.") is never swallowed by the check.
   */
  duplicateCheck?: boolean;
}

export type SendOutcome =
  | { kind: "sent"; platformId?: string }
  /** The platform says it already has this exact item: counts as sent. */
  | { kind: "duplicate" }
  | { kind: "retry"; reason: string; afterMs?: number }
  | { kind: "failed"; reason: string };

export type ChannelState = "starting" | "connected" | "resuming" | "disabled" | "stopped" | "error";

/** What the framework offers an adapter. */
export interface ChannelHost {
  /**
   * Stores the message (exactly once per platform message id) and queues it for the
   * agent. Resolves once it is durably stored; the adapter acknowledges after that.
   * "answered": a reply was stored at once, without an agent run (`/pair`); "accepted": the
   * agent will answer (a streaming channel opens its stream only then).
   * Rejects only when it could not be stored: then do not acknowledge (let it retry).
   */
  receive(message: InboundMessage): Promise<"accepted" | "duplicate" | "denied" | "answered">;
  /** Reports a state change; `reason` in plain words for `channels status`. */
  setState(state: ChannelState, reason?: string): void;
  /** Records that the platform was heard from (any frame). */
  touch(): void;
  logger: Logger;
}

/** An inbound HTTP request on `POST /channels/<id>/webhook`, already size-limited. */
export type WebhookHandler = (request: Request) => Promise<Response>;

export interface ChannelAdapter {
  readonly id: string;
  readonly capabilities: ChannelCapabilities;
  /** Connects (after READY). Must not throw for network trouble: report it via setState. */
  start(host: ChannelHost): Promise<void>;
  /** Sends one outbox item. Must not throw: failures are outcomes. */
  send(item: OutboxItem): Promise<SendOutcome>;
  /** Present when the channel receives over the HTTP server. */
  webhook?: WebhookHandler;
  /**
   * Downloads an attachment the platform does not serve as a plain public URL (media
   * by id, encrypted media). When present it replaces the public download for images.
   */
  fetchMedia?(attachment: InboundAttachment): Promise<{ bytes: Uint8Array; contentType?: string }>;
  /** Streaming platforms: the cleaned reply text so far while the agent runs. Must not throw. */
  replyProgress?(message: InboundMessage, text: string): void;
  /** Streaming platforms: the run ended with nothing stored to send (silent, failed). Must not throw. */
  replyAbandoned?(message: InboundMessage): void;
  stop(): Promise<void>;
}
