/**
 * The QQ official bot adapter: receives over the WebSocket gateway (default) or the
 * webhook, and sends outbox items as passive replies (`msg_id` = the user's message,
 * `msg_seq` = the item's part number, so a resend is deduped by QQ) or, without a
 * reply target, as active messages. Markdown when `channels.qq.markdown` is on; an
 * item that is a single `<qqimg>` tag is uploaded through the rich-media API and sent
 * as a media message (msg_type 7).
 */
import { ClawboxError, errorMessage } from "../../errors/index.ts";
import type { ChannelAdapter, ChannelHost, OutboxItem, SendOutcome } from "../channel.ts";
import type { AdapterDeps } from "../channel-definition.ts";
import { createQqAccessToken } from "./qq-access-token.ts";
import { QqApi, type QqMessageBody } from "./qq-api.ts";
import { qqCapabilities } from "./qq-capabilities.ts";
import { QqGateway } from "./qq-gateway.ts";
import { isPermanentImageFailure, qqImageSource } from "./qq-image-source.ts";
import { qqSigningKeys } from "./qq-signature.ts";
import { createQqWebhook } from "./qq-webhook.ts";

const IMAGE_ITEM = /^<qqimg>([\s\S]+?)<\/qqimg>$/;

export function createQqChannel(deps: AdapterDeps): ChannelAdapter {
  const qq = deps.channels.qq;
  if (!qq) throw new ClawboxError("CONFIG_INVALID", "channels.qq is not configured");
  const tokens = createQqAccessToken({
    tokenUrl: qq.tokenUrl,
    appId: qq.appId,
    clientSecret: qq.clientSecret,
  });
  const api = new QqApi(qq.apiBase, tokens);
  const capabilities = qqCapabilities(qq.markdown);
  let gateway: QqGateway | undefined;
  let webhook: ChannelAdapter["webhook"];

  const bodyOf = async (item: OutboxItem): Promise<QqMessageBody> => {
    const passive = item.replyTo
      ? { msg_id: item.replyTo, msg_seq: item.seq }
      : { msg_seq: item.seq };
    const image = IMAGE_ITEM.exec(item.text.trim());
    if (image?.[1]) {
      const source = qqImageSource(image[1], deps.workspace);
      const fileInfo = await api.uploadImage(item.chatType, item.peerId, source);
      return { msg_type: 7, content: " ", media: { file_info: fileInfo }, ...passive };
    }
    return qq.markdown
      ? { msg_type: 2, markdown: { content: item.text }, ...passive }
      : { msg_type: 0, content: item.text, ...passive };
  };

  return {
    id: "qq",
    capabilities,
    get webhook() {
      return webhook;
    },
    async start(host: ChannelHost) {
      if (qq.mode === "webhook") {
        webhook = createQqWebhook(qqSigningKeys(qq.clientSecret), host);
        host.setState("connected", "webhook mode: waiting for the platform's requests");
        return;
      }
      gateway = new QqGateway({ api, tokens, host, onMessage: (m) => host.receive(m) });
      gateway.start();
    },
    async send(item: OutboxItem): Promise<SendOutcome> {
      let body: QqMessageBody;
      try {
        body = await bodyOf(item);
      } catch (error) {
        const reason = errorMessage(error);
        return isPermanentImageFailure(error)
          ? { kind: "failed", reason }
          : { kind: "retry", reason };
      }
      return api.sendMessage(item.chatType, item.peerId, body);
    },
    async stop() {
      await gateway?.stop();
    },
  };
}
