/**
 * Whether `server.token` can be guessed (docs/SECURITY.md, "Bearer tokens"). The token is
 * the owner's password for the HTTP API, the OpenAI-compatible API and the console's
 * login form, so a token copied from the docs, or one a person typed with few different
 * characters (`aaaa…`, `abababab…`, `0123456789012345`), is refused where the config is
 * checked and loaded. `clawbox config token` prints one that passes (256 random bits).
 */
import { randomBytes } from "node:crypto";

/** Tokens that appeared as examples in the docs: copied ones are known to everyone. */
const EXAMPLE_TOKENS = new Set(["a-long-random-token-0123456789"]);

/** At least this many different characters. */
const MIN_DISTINCT = 8;
/** At least this many bits by the token's own character frequencies (length × entropy). */
const MIN_BITS = 64;

/** Bits of the token as if each character were drawn from its own frequencies. */
function estimatedBits(token: string): number {
  const counts = new Map<string, number>();
  for (const ch of token) counts.set(ch, (counts.get(ch) ?? 0) + 1);
  const length = [...token].length;
  let perChar = 0;
  for (const n of counts.values()) perChar -= (n / length) * Math.log2(n / length);
  return perChar * length;
}

/** Why `token` is too easy to guess, or undefined when it is fine. */
export function weakTokenReason(token: string): string | undefined {
  if (EXAMPLE_TOKENS.has(token)) return "is the example token from the docs, which anyone can read";
  const distinct = new Set(token).size;
  if (distinct < MIN_DISTINCT)
    return `has only ${distinct} different characters (at least ${MIN_DISTINCT} needed)`;
  if (estimatedBits(token) < MIN_BITS) return "repeats too few characters to be hard to guess";
  return undefined;
}

/** A fresh token: 32 random bytes, base64url (43 characters). */
export function generateToken(): string {
  return randomBytes(32).toString("base64url");
}
