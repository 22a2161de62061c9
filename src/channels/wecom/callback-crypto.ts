/**
 * The WeCom callback envelope: SHA1 `msg_signature` over the sorted
 * [token, timestamp, nonce, encrypt], then AES-256-CBC with the EncodingAESKey
 * (key = Base64(EncodingAESKey + "="), IV = its first 16 bytes, PKCS#7 to 32-byte
 * blocks) around `random(16) ‖ length(4, BE) ‖ message ‖ receiveid`.
 * The cipher itself is the official `@wecom/crypto`; this file adds what it leaves
 * out: a constant-time signature check, a block-size check and the receiveid (CorpID)
 * check. `@wecom/crypto` does not validate padding or the length field, but a bad
 * value of either shifts the receiveid, so the receiveid check rejects it too.
 * Callers verify the signature before calling `openEnvelope`.
 */
import { createHash, timingSafeEqual } from "node:crypto";
import { decrypt } from "@wecom/crypto";
import { ClawboxError } from "../../errors/index.ts";

export interface CallbackCryptoConfig {
  token: string;
  encodingAESKey: string;
  /** The CorpID the plaintext must end with. */
  receiveId: string;
}

export interface SignedParams {
  msgSignature: string;
  timestamp: string;
  nonce: string;
  encrypt: string;
}

/** The SHA1 signature WeCom puts in `msg_signature`. */
export function callbackSignature(
  token: string,
  timestamp: string,
  nonce: string,
  cipherText: string,
): string {
  return createHash("sha1")
    .update([token, timestamp, nonce, cipherText].sort().join(""))
    .digest("hex");
}

/** True when `msg_signature` matches; compares in constant time. */
export function signatureMatches(token: string, params: SignedParams): boolean {
  const expected = Buffer.from(
    callbackSignature(token, params.timestamp, params.nonce, params.encrypt),
  );
  const given = Buffer.from(params.msgSignature.toLowerCase());
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/**
 * Decrypts a verified `Encrypt` value and checks the block size and the receiveid.
 * Throws HTTP_BAD_REQUEST (without echoing any plaintext) when anything is off.
 */
export function openEnvelope(config: CallbackCryptoConfig, cipherText: string): string {
  const raw = Buffer.from(cipherText, "base64");
  if (raw.length === 0 || raw.length % 32 !== 0) {
    throw badEnvelope("ciphertext is not a whole number of 32-byte blocks");
  }
  let opened: { message: string; id: string; random: Buffer };
  try {
    opened = decrypt(config.encodingAESKey, cipherText);
  } catch (error) {
    throw badEnvelope("cannot decrypt", error);
  }
  if (opened.id !== config.receiveId) throw badEnvelope("receiveid does not match the CorpID");
  return opened.message;
}

function badEnvelope(why: string, cause?: unknown): ClawboxError {
  return new ClawboxError("HTTP_BAD_REQUEST", `WeCom callback: ${why}`, {
    ...(cause ? { cause } : {}),
    hint: "check channels.wecom.app.encodingAESKey and corpId",
  });
}
