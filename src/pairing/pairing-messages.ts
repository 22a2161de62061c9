/**
 * What pairing says to people, in English and Chinese (QQ and WeCom users): the code to a
 * stranger, the note to the owner, the welcome after approval. Short, plain text: it goes
 * out through any channel's reply shaping.
 */
import type { PairingRequest } from "./pairing-requests.ts";

const minutes = (ms: number) => Math.max(1, Math.round(ms / 60_000));

export function codeReply(request: PairingRequest, now = Date.now()): string {
  const left = minutes(request.expiresAt - now);
  return [
    `Your pairing code is ${request.display} (valid for ${left} minutes).`,
    `Ask the owner of this box to approve it: web console → Owners, or "clawbox pairing approve ${request.display}" on the box.`,
    `配对码：${request.display}（${left} 分钟内有效）。请让这台设备的主人在网页控制台的 Owners 页面批准。`,
  ].join("\n");
}

/** To someone who asks again while their code waits: no code (it was sent just before). */
export function pendingReply(request: PairingRequest, now = Date.now()): string {
  const left = minutes(request.expiresAt - now);
  return [
    `Your pairing code (sent above) is still waiting for the owner's approval; it expires in ${left} minutes.`,
    `你的配对码（见上一条消息）仍在等待主人批准，${left} 分钟后过期。`,
  ].join("\n");
}

export function busyReply(retryAfterMs: number): string {
  const wait = minutes(retryAfterMs);
  return [
    `Too many pairing requests are waiting right now. Try /pair again in ${wait} minutes.`,
    `待处理的配对请求太多，请 ${wait} 分钟后再发送 /pair。`,
  ].join("\n");
}

export function alreadyOwnerReply(): string {
  return "You are already an owner of this box. / 你已经是这台设备的主人。";
}

export function groupPairReply(): string {
  return "Pairing works only in a direct chat: send /pair to me privately. / 配对只能在私聊中进行：请私聊我发送 /pair。";
}

export function approvedText(): string {
  return [
    "You are now an owner of this box: I can use all my tools for you.",
    "你现在是这台设备的主人了。",
  ].join("\n");
}

/** The owner's notice about waiting requests (sent at most once per notice interval). */
export function ownerNotice(request: PairingRequest, waiting: number): string {
  const who = request.senderName ? `${request.senderName} (${request.ownerId})` : request.ownerId;
  const more = waiting > 1 ? ` ${waiting} pairing requests are waiting in all.` : "";
  return `${who} asked to pair with this box (code ${request.display}, on ${request.channel}).${more} Approve or deny it on the console's Owners page, or with "clawbox pairing approve ${request.display}". Ignore it if you do not know them: it expires by itself.`;
}
