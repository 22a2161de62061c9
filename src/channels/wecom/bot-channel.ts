/**
 * The WeCom intelligent bot as a channel adapter over the long connection. On each
 * message callback the message is stored through the framework (deduped by msgid),
 * then a stream is opened at once: its first `finish:false` frame goes out before the
 * agent starts (so it arrives within a second even while the local model loads),
 * updates follow the agent's text, and the outbox's first reply part finishes the
 * stream with the full cleaned text. Further parts, replies whose stream is gone (after
 * a restart) and proactive messages go out as `aibot_send_msg` to the chat.
 */

import { ClawboxError } from "../../errors/index.ts";
import { MAX_IMAGE_BYTES } from "../attachments.ts";
import type {
  ChannelAdapter,
  ChannelCapabilities,
  ChannelHost,
  InboundAttachment,
  InboundMessage,
  OutboxItem,
  SendOutcome,
} from "../channel.ts";
import type { AdapterDeps } from "../channel-definition.ts";
import { fetchPublic } from "../fetch-public.ts";
import {
  type BotConnection,
  type BotConnectionState,
  createBotConnection,
  newReqId,
} from "./bot-connection.ts";
import { BOT_CMD, type BotMessageBody } from "./bot-frames.ts";
import { decryptBotMedia } from "./bot-media.ts";
import { createStreamReply, type StreamReply } from "./bot-stream-reply.ts";
import { sendFailure } from "./send-failure.ts";
import { WECOM_BOT_CHANNEL } from "./wecom-channel-ids.ts";

/** Shown when the agent ends without anything to say (NO_REPLY) after the stream opened. */
export const NO_REPLY_TEXT = "(no reply)";

interface OpenStream {
  reqId: string;
  streamId: string;
  reply: StreamReply;
}

export function createWeComBotChannel(
  deps: AdapterDeps,
  capabilities: ChannelCapabilities,
): ChannelAdapter {
  const config = deps.channels.wecom?.bot;
  if (!config) throw new ClawboxError("CONFIG_INVALID", "channels.wecom.bot is not configured");
  const log = deps.logger;
  const streams = new Map<string, OpenStream>();
  let host: ChannelHost | undefined;
  let connection: BotConnection | undefined;

  function openStream(reqId: string, messageId: string): void {
    const streamId = newReqId("stream");
    const live = connection;
    if (!live) return;
    const reply = createStreamReply({
      logger: log,
      sendFrame: async (content, finish) => {
        await live.request(BOT_CMD.respond, reqId, {
          msgtype: "stream",
          stream: { id: streamId, finish, content },
        });
      },
    });
    streams.set(messageId, { reqId, streamId, reply });
    reply.open();
  }

  async function onMessage(reqId: string, body: BotMessageBody): Promise<void> {
    const channelHost = host;
    if (!channelHost) return;
    channelHost.touch();
    let outcome: string;
    try {
      outcome = await channelHost.receive(toInbound(body));
    } catch {
      return; // not stored: the framework logged it; the platform shows no answer.
    }
    if (outcome === "accepted") openStream(reqId, body.msgid);
  }

  function onState(state: BotConnectionState): void {
    const channelHost = host;
    if (!channelHost) return;
    switch (state.kind) {
      case "connected":
        channelHost.setState("connected");
        return;
      case "connecting":
        return;
      case "reconnecting":
        channelHost.setState(
          "resuming",
          `${state.reason}; reconnecting in ${Math.round(state.inMs / 1000)} s`,
        );
        return;
      case "auth-failed":
        channelHost.setState(
          "error",
          `${state.reason}; retrying in ${Math.round(state.inMs / 1000)} s`,
        );
        return;
      case "handed-over":
        channelHost.setState(
          "stopped",
          "another connection for this bot took over (disconnected_event); not reconnecting — restart clawbox to take it back",
        );
        return;
      case "stopped":
        return;
    }
  }

  async function sendProactive(item: OutboxItem): Promise<void> {
    const live = connection;
    if (!live) throw new ClawboxError("CHANNEL_NETWORK", "WeCom bot: not connected");
    await live.request(BOT_CMD.send, newReqId(BOT_CMD.send), {
      chatid: item.peerId,
      msgtype: "markdown",
      markdown: { content: item.text },
    });
  }

  return {
    id: WECOM_BOT_CHANNEL,
    capabilities,
    async start(channelHost) {
      host = channelHost;
      connection = createBotConnection({
        wsUrl: config.wsUrl,
        botId: config.botId,
        secret: config.secret,
        pingIntervalMs: config.pingIntervalMs,
        logger: log,
        onMessage: (reqId, body) => void onMessage(reqId, body),
        onEvent: (_reqId, body) => {
          channelHost.touch();
          log.info(`WeCom bot: event ${body.event.eventtype}`);
        },
        onState,
      });
      connection.start();
    },
    replyProgress(message, text) {
      streams.get(message.messageId)?.reply.update(text);
    },
    replyAbandoned(message) {
      const open = streams.get(message.messageId);
      if (!open) return;
      streams.delete(message.messageId);
      void open.reply.finish(NO_REPLY_TEXT).catch(() => undefined);
    },
    async fetchMedia(attachment) {
      if (!attachment.url || !attachment.aesKey) {
        throw new ClawboxError("MEDIA_INVALID", "WeCom bot: attachment without url or aeskey");
      }
      const { bytes } = await fetchPublic(attachment.url, {
        maxBytes: MAX_IMAGE_BYTES,
        contentTypePrefix: "",
      });
      return { bytes: decryptBotMedia(bytes, attachment.aesKey) };
    },
    async send(item): Promise<SendOutcome> {
      try {
        const open = item.replyTo ? streams.get(item.replyTo) : undefined;
        if (open && item.seq === 1 && !open.reply.finished) {
          streams.delete(item.replyTo ?? "");
          await open.reply.finish(item.text);
        } else {
          await sendProactive(item);
        }
        return { kind: "sent" };
      } catch (error) {
        return sendFailure(error);
      }
    },
    async stop() {
      connection?.stop();
      connection = undefined;
      host = undefined;
    },
  };
}

function toInbound(body: BotMessageBody): InboundMessage {
  const attachments: InboundAttachment[] = [];
  const texts: string[] = [];
  const addImage = (image: { url: string; aeskey?: string | undefined }) =>
    attachments.push({
      kind: "image",
      url: image.url,
      ...(image.aeskey ? { aesKey: image.aeskey } : {}),
      name: `${body.msgid}-${attachments.length + 1}.jpg`,
    });
  if (body.text) texts.push(body.text.content);
  if (body.image) addImage(body.image);
  for (const item of body.mixed?.msg_item ?? []) {
    if (item.text) texts.push(item.text.content);
    if (item.image) addImage(item.image);
  }
  if (body.voice) attachments.push({ kind: "voice", transcript: body.voice.content });
  const group = body.chattype === "group";
  return {
    channel: WECOM_BOT_CHANNEL,
    messageId: body.msgid,
    chatType: group ? "group" : "direct",
    senderId: body.from.userid,
    ...(group && body.chatid ? { groupId: body.chatid } : {}),
    text: texts.join("\n"),
    // The platform delivers group messages to the bot only when it is @-mentioned.
    mentioned: group,
    sentAt: body.create_time ? body.create_time * 1000 : Date.now(),
    attachments,
  };
}
