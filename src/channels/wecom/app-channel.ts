/**
 * The WeCom self-built app as a channel adapter: messages arrive on the callback URL
 * (`app-callback.ts`), go through the framework's inbox (deduped by MsgId, so the
 * platform's retries are answered once), and replies go out through message/send
 * (`app-api.ts`). Images are fetched by MediaId through media/get; voice uses the
 * platform's `Recognition` transcript. The app only has direct chats.
 */

import { ClawboxError } from "../../errors/index.ts";
import type {
  ChannelAdapter,
  ChannelCapabilities,
  ChannelHost,
  InboundAttachment,
  InboundMessage,
  SendOutcome,
} from "../channel.ts";
import type { AdapterDeps } from "../channel-definition.ts";
import { createWeComAppApi, type WeComAppApi } from "./app-api.ts";
import { handleAppCallback } from "./app-callback.ts";
import type { AppMessage } from "./app-message.ts";
import { sendFailure } from "./send-failure.ts";
import { WECOM_APP_CHANNEL } from "./wecom-channel-ids.ts";

export function createWeComAppChannel(
  deps: AdapterDeps,
  capabilities: ChannelCapabilities,
  options: { fetch?: typeof fetch } = {},
): ChannelAdapter {
  const config = deps.channels.wecom?.app;
  if (!config) throw new ClawboxError("CONFIG_INVALID", "channels.wecom.app is not configured");
  const api: WeComAppApi = createWeComAppApi({
    apiBase: config.apiBase,
    corpId: config.corpId,
    corpSecret: config.corpSecret,
    agentId: config.agentId,
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });
  let host: ChannelHost | undefined;

  const receive = async (message: Extract<AppMessage, { kind: "message" }>): Promise<string> => {
    if (!host) return "not started";
    return host.receive(toInbound(message));
  };

  return {
    id: WECOM_APP_CHANNEL,
    capabilities,
    async start(channelHost) {
      host = channelHost;
      // Nothing to connect: the platform calls us. Ready as soon as the route is served.
      channelHost.setState("connected", "waiting for callbacks on /channels/wecom/app");
    },
    webhook(request) {
      host?.touch();
      return handleAppCallback(request, {
        crypto: {
          token: config.token,
          encodingAESKey: config.encodingAESKey,
          receiveId: config.corpId,
        },
        logger: deps.logger,
        receive,
      });
    },
    async fetchMedia(attachment) {
      if (!attachment.mediaId)
        throw new ClawboxError("MEDIA_INVALID", "WeCom app: attachment without a MediaId");
      return api.media(attachment.mediaId);
    },
    async send(item): Promise<SendOutcome> {
      try {
        const msgid = await api.send(
          item.peerId,
          capabilities.markdown ? "markdown" : "text",
          item.text,
          item.duplicateCheck ? { duplicateCheckSeconds: capabilities.duplicateCheckSeconds } : {},
        );
        return { kind: "sent", ...(msgid ? { platformId: msgid } : {}) };
      } catch (error) {
        return sendFailure(error);
      }
    },
    async stop() {
      host = undefined;
    },
  };
}

function toInbound(message: Extract<AppMessage, { kind: "message" }>): InboundMessage {
  const attachments: InboundAttachment[] = [];
  if (message.image) {
    attachments.push({
      kind: "image",
      ...(message.image.mediaId ? { mediaId: message.image.mediaId } : {}),
      ...(message.image.picUrl ? { url: message.image.picUrl } : {}),
      name: `${message.msgId}.jpg`,
    });
  }
  if (message.voice) {
    attachments.push({
      kind: "voice",
      ...(message.voice.mediaId ? { mediaId: message.voice.mediaId } : {}),
      ...(message.voice.transcript ? { transcript: message.voice.transcript } : {}),
    });
  }
  return {
    channel: WECOM_APP_CHANNEL,
    messageId: message.msgId,
    chatType: "direct",
    senderId: message.fromUser,
    text: message.text,
    mentioned: false,
    sentAt: message.sentAt,
    attachments,
  };
}
