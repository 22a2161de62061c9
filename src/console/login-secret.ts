/**
 * The console's login secret (the Jupyter model): a random secret created at the first
 * start in `<home>/console-secret`, mode 0600, so only the service's user (and root) can
 * read it. Typing it on the login page, or opening a one-time link signed with it
 * (login-ticket.ts), is what makes a browser the owner; nothing else does, on loopback
 * included. `scripts/prepare-sd.sh --console-secret` writes one of the owner's choosing
 * for a headless box. Guarantees: an existing secret is never replaced; the file is
 * created with O_EXCL at 0600 (never briefly readable by others); a file readable by
 * other users is narrowed to 0600 before it is used; a short or unreadable file is an
 * error naming the file, never an open console.
 */
import {
  chmodSync,
  closeSync,
  constants,
  fstatSync,
  lstatSync,
  openSync,
  readFileSync,
  writeSync,
} from "node:fs";
import { join } from "node:path";
import { ClawboxError } from "../errors/index.ts";

export const LOGIN_SECRET_FILE = "console-secret";
/** Shortest secret accepted (the same floor as `server.token`). */
export const MIN_SECRET_LENGTH = 16;
const ALPHABET = "abcdefghjkmnpqrstuvwxyz23456789";

/** Where the login secret of the box with this home lives. */
export const loginSecretPath = (home: string): string => join(home, LOGIN_SECRET_FILE);

/** A new secret: 24 characters a person can type on a phone (~119 bits), in groups of four. */
export function generateLoginSecret(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(24));
  const chars = [...bytes].map((b) => ALPHABET[b % ALPHABET.length]);
  const groups: string[] = [];
  for (let i = 0; i < chars.length; i += 4) groups.push(chars.slice(i, i + 4).join(""));
  return groups.join("-");
}

function invalid(file: string, why: string): ClawboxError {
  return new ClawboxError("CONFIG_INVALID", `${file}: ${why}`, {
    hint: `delete it to have a new console login secret created at the next start, or write one of at least ${MIN_SECRET_LENGTH} characters (chmod 600)`,
  });
}

/** The secret in `file`; throws CONFIG_INVALID when it is not a usable secret file. */
export function readLoginSecret(file: string): string {
  const stat = lstatSync(file);
  if (!stat.isFile()) throw invalid(file, "is not a regular file");
  if ((stat.mode & 0o077) !== 0) chmodSync(file, 0o600);
  const secret = readFileSync(file, "utf8").trim();
  if (secret.length < MIN_SECRET_LENGTH)
    throw invalid(file, `the secret is shorter than ${MIN_SECRET_LENGTH} characters`);
  if (/\s/.test(secret)) throw invalid(file, "the secret contains spaces or line breaks");
  return secret;
}

/** Reads the home's login secret, creating it (0600) when there is none yet. */
export function ensureLoginSecret(home: string): { secret: string; created: boolean } {
  const file = loginSecretPath(home);
  let fd: number;
  try {
    fd = openSync(
      file,
      constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW,
      0o600,
    );
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST")
      return { secret: readLoginSecret(file), created: false };
    throw new ClawboxError("CONFIG_INVALID", `cannot create ${file}`, {
      cause: error,
      hint: "the home folder must be writable by the service's user",
    });
  }
  const secret = generateLoginSecret();
  try {
    writeSync(fd, `${secret}\n`);
    if ((fstatSync(fd).mode & 0o077) !== 0) chmodSync(file, 0o600);
  } finally {
    closeSync(fd);
  }
  return { secret, created: true };
}
