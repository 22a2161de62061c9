/**
 * A passphrase kept in a file (`--passphrase-file`, `backup.passphraseFile`): its first
 * line, without the line break. Shorter than 8 characters is refused: scrypt slows
 * guessing, it cannot save "1234". The passphrase itself never appears in an error.
 */
import { readFileSync } from "node:fs";
import { ClawboxError } from "../errors/index.ts";

const MIN_PASSPHRASE_LENGTH = 8;

/** Throws CLI_USAGE for a passphrase too short; `where` says where it came from. */
export function checkPassphrase(passphrase: string, where: string): string {
  if (passphrase.length < MIN_PASSPHRASE_LENGTH)
    throw new ClawboxError(
      "CLI_USAGE",
      `the passphrase ${where} is shorter than ${MIN_PASSPHRASE_LENGTH} characters`,
    );
  return passphrase;
}

export function readPassphraseFile(file: string): string {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch {
    throw new ClawboxError("NOT_FOUND", `cannot read the passphrase file ${file}`);
  }
  return checkPassphrase(text.split(/\r?\n/)[0] ?? "", `in ${file}`);
}
