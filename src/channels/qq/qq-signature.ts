/**
 * QQ webhook signatures (bot docs, "事件订阅与通知" and sign.md): an ed25519 key whose
 * 32-byte seed is the app secret repeated until long enough, then cut. The platform
 * signs `X-Signature-Timestamp + body`; the bot answers the URL validation (op 13)
 * by signing `event_ts + plain_token`. Signatures are hex.
 */
import { createPrivateKey, createPublicKey, type KeyObject, sign, verify } from "node:crypto";
import { ClawboxError } from "../../errors/index.ts";

const SEED_SIZE = 32;
/** DER header of a PKCS#8 ed25519 private key; the 32-byte seed follows. */
const PKCS8_ED25519_PREFIX = Buffer.from("302e020100300506032b657004220420", "hex");

export interface QqSigningKeys {
  privateKey: KeyObject;
  publicKey: KeyObject;
}

export function qqSeed(secret: string): Buffer {
  let seed = secret;
  if (seed.length === 0) throw new ClawboxError("CONFIG_INVALID", "empty secret");
  while (seed.length < SEED_SIZE) seed = seed.repeat(2);
  return Buffer.from(seed.slice(0, SEED_SIZE), "utf8").subarray(0, SEED_SIZE);
}

export function qqSigningKeys(secret: string): QqSigningKeys {
  const privateKey = createPrivateKey({
    key: Buffer.concat([PKCS8_ED25519_PREFIX, qqSeed(secret)]),
    format: "der",
    type: "pkcs8",
  });
  return { privateKey, publicKey: createPublicKey(privateKey) };
}

export function signHex(keys: QqSigningKeys, message: string): string {
  return sign(null, Buffer.from(message, "utf8"), keys.privateKey).toString("hex");
}

/** False for a missing, malformed or wrong signature (never throws). */
export function verifyHex(
  publicKey: KeyObject,
  message: string | Uint8Array,
  signatureHex: string,
): boolean {
  if (!/^[0-9a-f]{128}$/i.test(signatureHex)) return false;
  const bytes = typeof message === "string" ? Buffer.from(message, "utf8") : message;
  try {
    return verify(null, bytes, publicKey, Buffer.from(signatureHex, "hex"));
  } catch {
    return false;
  }
}
