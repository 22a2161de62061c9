/**
 * A backup's passphrase: from `--passphrase-file` (first line; a trailing newline is
 * not part of it), else typed at the terminal without echo (twice when a backup is
 * made, so a typo does not lock the owner out of it). Without a terminal and without
 * the file it is a usage error, never an empty passphrase or a hang on a pipe. The
 * passphrase is never printed, logged or put in an error.
 */
import { checkPassphrase, readPassphraseFile } from "../backup/index.ts";
import { ClawboxError } from "../errors/index.ts";

/** One line typed at the terminal with echo off; Ctrl-C or Ctrl-D aborts. */
function promptHidden(prompt: string, stderr: { write(t: string): void }): Promise<string> {
  const stdin = process.stdin;
  // Echo off before the prompt shows: a fast typist (or a script) types right after it.
  stdin.setRawMode(true);
  stderr.write(prompt);
  return new Promise((resolve, reject) => {
    let typed = "";
    stdin.resume();
    const done = (error?: ClawboxError) => {
      stdin.off("data", onData);
      stdin.setRawMode(false);
      stdin.pause();
      stderr.write("\n");
      if (error) reject(error);
      else resolve(typed);
    };
    const onData = (data: Buffer) => {
      for (const char of data.toString("utf8")) {
        if (char === "\r" || char === "\n") return done();
        if (char === "\u0003" || char === "\u0004")
          return done(new ClawboxError("ABORTED", "stopped: no passphrase was given"));
        if (char === "\u007f" || char === "\b") typed = typed.slice(0, -1);
        else typed += char;
      }
    };
    stdin.on("data", onData);
  });
}

export interface PassphraseSource {
  file: string | undefined;
  /** Ask twice and compare (a new backup). */
  confirm: boolean;
  stderr: { write(t: string): void };
  /** The option's name for the usage error, e.g. "--passphrase-file". */
  usage: string;
}

export async function readPassphrase(source: PassphraseSource): Promise<string> {
  if (source.file !== undefined) return readPassphraseFile(source.file);
  if (!process.stdin.isTTY)
    throw new ClawboxError(
      "CLI_USAGE",
      `no terminal to ask for the passphrase: give ${source.usage} FILE (its first line is the passphrase)`,
    );
  const first = checkPassphrase(await promptHidden("Backup passphrase: ", source.stderr), "typed");
  if (source.confirm) {
    const again = await promptHidden("Same passphrase again: ", source.stderr);
    if (again !== first)
      throw new ClawboxError("CLI_USAGE", "the two passphrases differ; nothing was written");
  }
  return first;
}
