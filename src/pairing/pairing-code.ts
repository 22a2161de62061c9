/**
 * Pairing codes: 8 characters from a 32-letter alphabet without look-alikes (no 0/O,
 * 1/I), drawn with the system's cryptographic random source: 40 bits, so guessing one of
 * the few pending codes within the approval rate limit is hopeless. Shown as `ABCD-EFGH`;
 * typed in any case, with or without the dash or spaces.
 */
import { randomInt } from "node:crypto";

const ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789";
export const CODE_LENGTH = 8;

export function newPairingCode(): string {
  let code = "";
  for (let i = 0; i < CODE_LENGTH; i++) code += ALPHABET[randomInt(ALPHABET.length)];
  return code;
}

/** `ABCDEFGH` → `ABCD-EFGH`. */
export function formatPairingCode(code: string): string {
  return `${code.slice(0, 4)}-${code.slice(4)}`;
}

/** What a person typed → the stored form, or undefined when it cannot be a code. */
export function normalizePairingCode(typed: string): string | undefined {
  const code = typed.toUpperCase().replace(/[\s-]/g, "");
  if (code.length !== CODE_LENGTH) return undefined;
  for (const ch of code) if (!ALPHABET.includes(ch)) return undefined;
  return code;
}
