/**
 * Plays the WeCom platform calling a self-built app's callback URL (documents 90930
 * "加解密方案" and 90238 "接收消息"): encrypts the message XML with AES-256-CBC
 * (key = Base64(EncodingAESKey + "="), IV = key[0..16), PKCS#7 to 32-byte blocks,
 * plaintext = random(16) ‖ length(4, big-endian) ‖ xml ‖ CorpID), signs with SHA1 over
 * the sorted [token, timestamp, nonce, Encrypt], and sends the GET (URL check with
 * echostr) or POST (message) the platform sends. Written from the documents with
 * node:crypto only, independently of the code under test.
 */
import { createCipheriv, createHash, randomBytes } from "node:crypto";

export interface CallbackSecrets {
  token: string;
  encodingAESKey: string;
  corpId: string;
}

/** The callback secrets of the platform's own sample (document 90930), for tests. */
export const SAMPLE_SECRETS: CallbackSecrets = {
  token: "QDG6eK",
  encodingAESKey: "jWmYm7qr5nMoAUwZRjGtBxmz3KA1tkAj3ykkR6q2B2C",
  corpId: "wx5823bf96d3bd56c7",
};

/** `channels.wecom.app` for these secrets, against the fake API at `apiBase`. */
export function wecomAppConfig(
  secrets: CallbackSecrets,
  corpSecret: string,
  apiBase: string,
): Record<string, unknown> {
  return {
    corpId: secrets.corpId,
    corpSecret,
    agentId: 1000002,
    token: secrets.token,
    encodingAESKey: secrets.encodingAESKey,
    apiBase,
  };
}

export function platformEncrypt(secrets: CallbackSecrets, plaintext: string): string {
  const key = Buffer.from(`${secrets.encodingAESKey}=`, "base64");
  const message = Buffer.from(plaintext, "utf8");
  const length = Buffer.alloc(4);
  length.writeUInt32BE(message.length);
  const body = Buffer.concat([randomBytes(16), length, message, Buffer.from(secrets.corpId)]);
  const pad = 32 - (body.length % 32);
  const padded = Buffer.concat([body, Buffer.alloc(pad, pad)]);
  const cipher = createCipheriv("aes-256-cbc", key, key.subarray(0, 16));
  cipher.setAutoPadding(false);
  return Buffer.concat([cipher.update(padded), cipher.final()]).toString("base64");
}

export function platformSign(
  token: string,
  timestamp: string,
  nonce: string,
  encrypt: string,
): string {
  return createHash("sha1")
    .update([token, timestamp, nonce, encrypt].sort().join(""))
    .digest("hex");
}

function query(params: Record<string, string>): string {
  return new URLSearchParams(params).toString();
}

/** The URL-verification GET; resolves with the response. */
export async function verifyUrl(
  callbackUrl: string,
  secrets: CallbackSecrets,
  echo: string,
  options: { forgeSignature?: boolean } = {},
): Promise<Response> {
  const timestamp = String(Math.floor(Date.now() / 1000));
  const nonce = randomBytes(6).toString("hex");
  const echostr = platformEncrypt(secrets, echo);
  const signature = options.forgeSignature
    ? "0".repeat(40)
    : platformSign(secrets.token, timestamp, nonce, echostr);
  return fetch(`${callbackUrl}?${query({ msg_signature: signature, timestamp, nonce, echostr })}`);
}

export interface AppMessage {
  fromUser: string;
  msgId?: string;
  msgType: "text" | "image" | "voice" | "event";
  content?: string;
  mediaId?: string;
  picUrl?: string;
  recognition?: string;
  event?: string;
  agentId?: number;
}

/** The inner XML of a callback, as document 90239 shows it. */
export function messageXml(secrets: CallbackSecrets, message: AppMessage): string {
  const fields: string[] = [
    `<ToUserName><![CDATA[${secrets.corpId}]]></ToUserName>`,
    `<FromUserName><![CDATA[${message.fromUser}]]></FromUserName>`,
    `<CreateTime>${Math.floor(Date.now() / 1000)}</CreateTime>`,
    `<MsgType><![CDATA[${message.msgType}]]></MsgType>`,
  ];
  if (message.content !== undefined)
    fields.push(`<Content><![CDATA[${message.content}]]></Content>`);
  if (message.picUrl) fields.push(`<PicUrl><![CDATA[${message.picUrl}]]></PicUrl>`);
  if (message.mediaId) fields.push(`<MediaId><![CDATA[${message.mediaId}]]></MediaId>`);
  if (message.msgType === "voice") fields.push("<Format><![CDATA[amr]]></Format>");
  if (message.recognition)
    fields.push(`<Recognition><![CDATA[${message.recognition}]]></Recognition>`);
  if (message.event) fields.push(`<Event><![CDATA[${message.event}]]></Event>`);
  if (message.msgId) fields.push(`<MsgId>${message.msgId}</MsgId>`);
  fields.push(`<AgentID>${message.agentId ?? 1000002}</AgentID>`);
  return `<xml>${fields.join("")}</xml>`;
}

/** The message POST; resolves with the response. */
export async function postMessage(
  callbackUrl: string,
  secrets: CallbackSecrets,
  message: AppMessage,
  options: { forgeSignature?: boolean } = {},
): Promise<Response> {
  const timestamp = String(Math.floor(Date.now() / 1000));
  const nonce = randomBytes(6).toString("hex");
  const encrypt = platformEncrypt(secrets, messageXml(secrets, message));
  const signature = options.forgeSignature
    ? platformSign("not-the-token", timestamp, nonce, encrypt)
    : platformSign(secrets.token, timestamp, nonce, encrypt);
  const body = `<xml><ToUserName><![CDATA[${secrets.corpId}]]></ToUserName><Encrypt><![CDATA[${encrypt}]]></Encrypt><AgentID><![CDATA[${message.agentId ?? 1000002}]]></AgentID></xml>`;
  return fetch(`${callbackUrl}?${query({ msg_signature: signature, timestamp, nonce })}`, {
    method: "POST",
    headers: { "content-type": "text/xml" },
    body,
  });
}
