/**
 * `GET|POST /channels/wecom/app`: the self-built app's callback URL.
 * - The SHA1 `msg_signature` is checked before anything is decrypted or parsed; a
 *   mismatch is 403 and the ciphertext is never touched. WeCom signs the `<Encrypt>`
 *   text, so finding that text by a linear scan of the (at most 256 KB) body is the only
 *   work done for an unsigned request (callback-xml.ts).
 * - GET with `echostr` (URL verification) answers the decrypted plaintext.
 * - POST answers an empty 200 as soon as the message is durably stored (well inside
 *   the platform's 5 seconds); the real answer goes out later through message/send.
 *   A retried POST of the same MsgId is stored once (the inbox dedupes) and still
 *   gets its empty 200, so the platform stops retrying.
 */

import { errorMessage } from "../../errors/index.ts";
import type { Logger } from "../../system/index.ts";
import { type AppMessage, appMessageFields, toAppMessage } from "./app-message.ts";
import { type CallbackCryptoConfig, openEnvelope, signatureMatches } from "./callback-crypto.ts";
import { encryptedField, readXmlFields } from "./callback-xml.ts";

export interface AppCallbackDeps {
  crypto: CallbackCryptoConfig;
  logger: Logger;
  /** Stores the message (deduped by MsgId) and queues it; resolves once durable. */
  receive(message: Extract<AppMessage, { kind: "message" }>): Promise<string>;
}

const MAX_BODY_BYTES = 256 * 1024;

export async function handleAppCallback(
  request: Request,
  deps: AppCallbackDeps,
): Promise<Response> {
  const url = new URL(request.url);
  const msgSignature = url.searchParams.get("msg_signature");
  const timestamp = url.searchParams.get("timestamp");
  const nonce = url.searchParams.get("nonce");
  if (!msgSignature || !timestamp || !nonce) {
    return plain(400, "missing msg_signature, timestamp or nonce");
  }
  if (request.method === "GET") {
    const echostr = url.searchParams.get("echostr");
    if (!echostr) return plain(400, "missing echostr");
    if (
      !signatureMatches(deps.crypto.token, { msgSignature, timestamp, nonce, encrypt: echostr })
    ) {
      deps.logger.warn("WeCom app: URL verification with a wrong signature refused");
      return plain(403, "signature mismatch");
    }
    return opened(deps, echostr, (echo) => plain(200, echo));
  }
  if (request.method !== "POST") return plain(405, "GET or POST only");
  const declared = Number(request.headers.get("content-length") ?? "0");
  if (declared > MAX_BODY_BYTES) return plain(413, "body too large");
  const raw = await request.arrayBuffer();
  if (raw.byteLength > MAX_BODY_BYTES) return plain(413, "body too large");
  // WeCom signs the <Encrypt> text, so that text (found by a linear scan, nothing parsed)
  // is all an unverified body is read for.
  const encrypt = encryptedField(new Uint8Array(raw));
  if (!encrypt) return plain(400, "no base64 <Encrypt> element");
  if (!signatureMatches(deps.crypto.token, { msgSignature, timestamp, nonce, encrypt })) {
    deps.logger.warn("WeCom app: callback with a wrong signature refused");
    return plain(403, "signature mismatch");
  }
  return opened(deps, encrypt, async (xml) => {
    let parsed: Record<string, string>;
    try {
      parsed = await readXmlFields(xml);
    } catch {
      deps.logger.warn("WeCom app: decrypted callback is not well-formed XML; ignored");
      return plain(200, "");
    }
    const fields = appMessageFields.safeParse(parsed);
    if (!fields.success) {
      deps.logger.warn("WeCom app: callback XML without the expected fields ignored");
      return plain(200, "");
    }
    const message = toAppMessage(fields.data);
    if (message.kind === "event") {
      deps.logger.info(`WeCom app: event ${message.event}`, { from: message.fromUser });
    } else if (message.kind === "unsupported") {
      deps.logger.info(`WeCom app: ${message.msgType} messages are not handled`);
    } else {
      const outcome = await deps.receive(message);
      deps.logger.debug("WeCom app: message received", { msgId: message.msgId, outcome });
    }
    return plain(200, "");
  });
}

async function opened(
  deps: AppCallbackDeps,
  cipherText: string,
  then: (plaintext: string) => Response | Promise<Response>,
): Promise<Response> {
  let plaintext: string;
  try {
    plaintext = openEnvelope(deps.crypto, cipherText);
  } catch (error) {
    deps.logger.warn("WeCom app: callback could not be decrypted", {
      reason: errorMessage(error),
    });
    return plain(400, "cannot decrypt");
  }
  return then(plaintext);
}

function plain(status: number, text: string): Response {
  return new Response(text, { status, headers: { "content-type": "text/plain; charset=utf-8" } });
}
