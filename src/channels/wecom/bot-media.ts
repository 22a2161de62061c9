/**
 * Media in the intelligent bot's messages (image, file, mixed items): the URL serves
 * ciphertext, AES-256-CBC with the message's own `aeskey` (Base64 of 32 bytes; IV =
 * its first 16 bytes; PKCS#7 padding to 32-byte blocks). Padding is checked strictly so
 * a wrong key fails loudly instead of handing the model garbage.
 */
import { createDecipheriv } from "node:crypto";
import { ClawboxError } from "../../errors/index.ts";

/** Decrypts one downloaded media file. */
export function decryptBotMedia(cipher: Uint8Array, aeskey: string): Uint8Array {
  const key = Buffer.from(aeskey, "base64");
  if (key.length !== 32) {
    throw new ClawboxError("CHANNEL_API", "WeCom bot media: the aeskey is not 32 bytes");
  }
  if (cipher.length === 0 || cipher.length % 16 !== 0) {
    throw new ClawboxError("CHANNEL_API", "WeCom bot media: the file is not AES-CBC ciphertext");
  }
  const decipher = createDecipheriv("aes-256-cbc", key, key.subarray(0, 16));
  decipher.setAutoPadding(false);
  const plain = Buffer.concat([decipher.update(cipher), decipher.final()]);
  const pad = plain[plain.length - 1] ?? 0;
  const padOk =
    pad >= 1 &&
    pad <= 32 &&
    pad <= plain.length &&
    plain.subarray(plain.length - pad).every((b) => b === pad);
  if (!padOk) {
    throw new ClawboxError(
      "CHANNEL_API",
      "WeCom bot media: wrong aeskey or damaged file (bad padding)",
    );
  }
  return new Uint8Array(plain.subarray(0, plain.length - pad));
}
