/**
 * From a stored inbound message to stored replies: access check, session key, the
 * per-turn envelope (channel, sender, chat type, message id, reply target, received
 * time, capabilities; never the system prompt), the agent run, reply shaping, and one
 * transaction that stores the reply parts in the outbox and marks the message answered.
 * A message whose reply window has closed is marked expired instead of answered.
 */
import type { Database } from "bun:sqlite";
import type { AgentEvent, ChatRequest, ChatResult } from "../agent/index.ts";
import type { ToolsConfig } from "../config/index.ts";
import { ClawboxError, errorMessage } from "../errors/index.ts";
import { formatConversation, type SessionResolver, senderAddress } from "../sessions/index.ts";
import type { Logger } from "../system/index.ts";
import { ownerPowers } from "../tools/index.ts";
import { type AccessPolicy, decideAccess } from "./access.ts";
import { type AttachmentOptions, prepareAttachments } from "./attachments.ts";
import type { ChannelAdapter, ChannelCapabilities, InboundMessage } from "./channel.ts";
import { Inbox, peerOf } from "./inbox.ts";
import { Outbox } from "./outbox.ts";
import { answerPairing, isPairCommand, type PairingHost } from "./pair-command.ts";
import { guardReplyAttachments } from "./reply-attachments.ts";
import { shapeReply } from "./reply-shaping.ts";

/** What the dispatcher needs from the agent (structurally the agent's public API). */
export interface ChannelAgent {
  chat(request: ChatRequest): Promise<ChatResult>;
}

/** Stop answering this long before the platform's window closes: the send takes time. */
export const WINDOW_SAFETY_MS = 15_000;

export interface DispatcherChannel {
  capabilities: ChannelCapabilities;
  access: AccessPolicy;
  /** The adapter's optional media download and streaming hooks. */
  adapter?: Pick<ChannelAdapter, "fetchMedia" | "replyProgress" | "replyAbandoned">;
}

export interface DispatcherDeps {
  db: Database;
  agent: ChannelAgent;
  /** `tools`: what an owner's reply in a group may attach (tools.groupOwnerPowers). */
  tools: ToolsConfig;
  /** The session of each message, and whose it is. */
  sessions: SessionResolver;
  logger: Logger;
  /** Called after replies were stored (the outbox worker sends them). */
  onReplies: () => void;
  attachments?: AttachmentOptions;
  /** The workspace: images a reply attaches are judged against it for the turn's sender. */
  workspace: string;
  /** Answers `/pair` (pair-command.ts); without it `/pair` is an ordinary message. */
  pairing?: PairingHost;
}

export function describeCapabilities(caps: ChannelCapabilities): string {
  return `${caps.markdown ? "markdown" : "plain text"}, up to ${caps.maxLength} chars per message, at most ${caps.maxRepliesPerMessage} messages per reply${caps.images ? ", images via <qqimg>PATH_OR_URL</qqimg>" : ""}`;
}

/** End of the window in which `message` may still be answered. */
export function replyDeadline(message: InboundMessage, caps: ChannelCapabilities): number {
  return message.sentAt + caps.replyWindowMs[message.chatType] - WINDOW_SAFETY_MS;
}

export class Dispatcher {
  readonly inbox: Inbox;
  readonly outbox: Outbox;
  private readonly channels = new Map<string, DispatcherChannel>();
  private readonly running = new Set<Promise<void>>();

  constructor(private readonly deps: DispatcherDeps) {
    this.inbox = new Inbox(deps.db);
    this.outbox = new Outbox(deps.db);
  }

  register(channel: string, settings: DispatcherChannel): void {
    this.channels.set(channel, settings);
  }

  /**
   * Stores, dedupes and checks access; the agent run happens in the background.
   * "answered": replied at once without the agent (pairing).
   */
  receive(message: InboundMessage): "accepted" | "duplicate" | "denied" | "answered" {
    const settings = this.settingsOf(message.channel);
    const { stored, id } = this.deps.db.transaction(() => this.inbox.record(message))();
    if (!stored) {
      this.deps.logger.debug("duplicate message dropped", {
        channel: message.channel,
        messageId: message.messageId,
      });
      return "duplicate";
    }
    const senderId = this.senderIdOf(message);
    const owner = this.deps.sessions.isOwner(senderId);
    const access = decideAccess(message, settings.access, owner);
    const pairing = this.deps.pairing
      ? answerPairing(message, access, owner, senderId, this.deps.pairing)
      : undefined;
    if (pairing) {
      if (pairing.reply === undefined) {
        this.inbox.setState(id, "ignored", pairing.reason);
        return "denied";
      }
      this.replyAtOnce(id, message, pairing.reply, pairing.reason);
      return "answered";
    }
    if (!access.allowed) {
      this.inbox.setState(id, "ignored", access.reason);
      this.deps.logger.info("message ignored", { channel: message.channel, reason: access.reason });
      return "denied";
    }
    this.track(this.answer(id, message, Date.now()));
    return "accepted";
  }

  /** Stores `text` as the reply to `message` (within its window) and marks it answered. */
  private replyAtOnce(inboxId: number, message: InboundMessage, text: string, why: string): void {
    const { capabilities } = this.settingsOf(message.channel);
    const parts = shapeReply(text, capabilities);
    this.deps.db.transaction(() => {
      this.outbox.enqueue(
        { channel: message.channel, chatType: message.chatType, peerId: peerOf(message) },
        parts,
        {
          replyTo: message.messageId,
          expiresAt: replyDeadline(message, capabilities),
          maxSeq: capabilities.maxRepliesPerMessage,
        },
      );
      this.inbox.setState(inboxId, "answered", why);
    })();
    this.deps.onReplies();
  }

  /** The sender as the agent and `agent.owners` know it: `qq:OPENID`, `wecom:USERID`. */
  private senderIdOf(message: InboundMessage): string {
    return senderAddress(message.channel, message.senderId);
  }

  /** Answers, once, what a crash left stored but unanswered. */
  recover(channel: string): number {
    const rows = this.inbox.unanswered(channel);
    for (const row of rows) {
      if (isPairCommand(row.message.text)) {
        this.inbox.setState(row.id, "ignored", "pairing: cut off by a restart (send /pair again)");
        continue;
      }
      if (this.outbox.hasReplyTo(channel, row.message.messageId)) {
        this.inbox.setState(row.id, "answered", "reply stored before a restart");
        continue;
      }
      this.track(this.answer(row.id, row.message, row.receivedAt));
    }
    return rows.length;
  }

  /** Waits for runs in flight (shutdown). */
  async drain(): Promise<void> {
    while (this.running.size > 0) await Promise.allSettled([...this.running]);
  }

  private settingsOf(channel: string): DispatcherChannel {
    const settings = this.channels.get(channel);
    if (!settings)
      throw new ClawboxError(
        "INTERNAL",
        `channel ${channel} is not registered with the dispatcher`,
      );
    return settings;
  }

  private track(run: Promise<void>): void {
    this.running.add(run);
    void run.finally(() => this.running.delete(run));
  }

  private async answer(
    inboxId: number,
    message: InboundMessage,
    receivedAt: number,
  ): Promise<void> {
    const { capabilities, adapter } = this.settingsOf(message.channel);
    const log = this.deps.logger;
    let stored = false;
    try {
      const deadline = replyDeadline(message, capabilities);
      if (Date.now() >= deadline) {
        this.inbox.setState(inboxId, "expired", "reply window closed before the agent ran");
        log.warn("message not answered: its reply window closed before the agent ran", {
          channel: message.channel,
          messageId: message.messageId,
          waitedMs: Date.now() - receivedAt,
        });
        return;
      }
      const fetchMedia = adapter?.fetchMedia?.bind(adapter);
      const prepared = await prepareAttachments(message, {
        ...(this.deps.attachments ?? { vision: false }),
        ...(fetchMedia ? { fetchMedia } : {}),
      });
      const request = this.requestOf(message, prepared, capabilities);
      const onEvent = adapter?.replyProgress ? streamText(message, adapter) : undefined;
      const result = await this.deps.agent.chat({
        ...request,
        receivedAt,
        ...(onEvent ? { onEvent } : {}),
      });
      const text = result.error && !result.reply ? result.error.message : result.reply;
      const shaped = result.silent ? [] : shapeReply(text, capabilities);
      const { parts, refused } = guardReplyAttachments(shaped, capabilities.imageTag, {
        workspace: this.deps.workspace,
        isOwner: ownerPowers(
          { isOwner: this.deps.sessions.isOwner(request.senderId), chatType: request.chatType },
          this.deps.tools,
        ),
      });
      if (refused.length > 0)
        log.warn("reply images refused for this sender", { count: refused.length });
      const target = {
        channel: message.channel,
        chatType: message.chatType,
        peerId: peerOf(message),
      };
      const dropped = this.deps.db.transaction(() => {
        const stored = this.outbox.enqueue(target, parts, {
          replyTo: message.messageId,
          expiresAt: deadline,
          maxSeq: capabilities.maxRepliesPerMessage,
        });
        this.inbox.setState(inboxId, "answered", result.silent ? "silent reply" : undefined);
        return stored.dropped;
      })();
      if (dropped > 0) log.warn("reply parts over the platform limit dropped", { dropped });
      stored = parts.length > 0;
      if (stored) this.deps.onReplies();
    } catch (error) {
      const reason = errorMessage(error);
      this.inbox.setState(inboxId, "failed", reason);
      log.error("answering a channel message failed", { channel: message.channel, reason });
    } finally {
      if (!stored) adapter?.replyAbandoned?.(message);
    }
  }

  private requestOf(
    message: InboundMessage,
    prepared: Awaited<ReturnType<typeof prepareAttachments>>,
    capabilities: ChannelCapabilities,
  ): ChatRequest {
    const peerId = peerOf(message);
    return {
      // Per peer and per group; an owner's direct chat may fold into the main session, a
      // stranger's never does (SPEC §9a).
      sessionKey: this.deps.sessions.forMessage({
        channel: message.channel,
        chatType: message.chatType,
        senderId: message.senderId,
        groupId: message.groupId,
      }),
      // The key is this sender's own: if the session there belongs to someone else, an
      // owner was added or removed since, and a fresh session takes over.
      foreignSession: "new-session",
      text: prepared.text,
      ...(prepared.images.length > 0 ? { images: prepared.images } : {}),
      channel: message.channel,
      senderId: this.senderIdOf(message),
      ...(message.senderName ? { senderName: message.senderName } : {}),
      chatType: message.chatType,
      ...(message.groupId ? { groupId: message.groupId } : {}),
      messageId: message.messageId,
      replyTo: formatConversation({
        channel: message.channel,
        chatType: message.chatType,
        peer: peerId,
      }),
      capabilities: describeCapabilities(capabilities),
    };
  }
}

/** Feeds the adapter the cleaned reply text so far (assistant messages of a run joined by a blank line). */
function streamText(
  message: InboundMessage,
  adapter: Pick<ChannelAdapter, "replyProgress">,
): (event: AgentEvent) => void {
  let text = "";
  let separate = false;
  return (event) => {
    if (event.type === "message_end" && event.message.role === "assistant" && text) {
      separate = true;
    }
    if (event.type !== "message_update" || event.event.type !== "text_delta" || !event.delta) {
      return;
    }
    text += separate ? `\n\n${event.delta}` : event.delta;
    separate = false;
    adapter.replyProgress?.(message, text);
  };
}
