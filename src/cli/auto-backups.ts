/**
 * The timer of automatic backups in `clawbox run` (docs/BACKUP.md, "Automatic
 * backups"): the first look 15 s after READY, then every hour; the backup area is
 * imported only when `backup.dir` is set and a look is due, so it costs the service's
 * start nothing. The section is read at each look, so an edited config applies. An
 * outcome other than "written" or "not due" is one warning line, never an error: a
 * backup never fails a turn.
 */
import { join } from "node:path";
import type { BackupConfig } from "../config/index.ts";
import { type HomePaths, type Logger, runBoundedProcess, runtimeLayout } from "../system/index.ts";

const FIRST_LOOK_MS = 15_000;
const LOOK_EVERY_MS = 3_600_000;
/** A backup of a large home onto a slow stick still ends well within this. */
const BACKUP_TIMEOUT_MS = 6 * 3_600_000;

/** This program as a command line: the compiled binary, or Bun with the source entry point. */
function selfCommand(): string[] {
  const layout = runtimeLayout();
  return layout.compiled
    ? [process.execPath]
    : [process.execPath, join(layout.root, "src", "cli", "main.ts")];
}

/** `clawbox backup create` as a child: the reason it failed (its last stderr line), or undefined. */
async function backupInChild(home: string, output: string, passphraseFile: string) {
  const [command, ...first] = selfCommand() as [string, ...string[]];
  // BUN_BE_BUN (set for node-llama-cpp's probe) would make a compiled child plain Bun.
  const { BUN_BE_BUN: _, ...env } = process.env;
  const result = await runBoundedProcess(
    command,
    [
      ...first,
      "--home",
      home,
      "backup",
      "create",
      "-o",
      output,
      "--passphrase-file",
      passphraseFile,
    ],
    { timeoutMs: BACKUP_TIMEOUT_MS, env },
  );
  if (result.code === 0) return undefined;
  const last = result.stderr.trim().split("\n").at(-1) ?? "";
  return (
    last.replace(/^clawbox backup: /, "") ||
    (result.timedOut ? "it took longer than 6 hours" : `exit ${result.code ?? result.signal}`)
  );
}

export interface AutoBackupTimerOptions {
  /** The live config object (a reload replaces its sections). */
  config: { backup: BackupConfig };
  paths: HomePaths;
  version: string;
  logger: Logger;
}

/** Starts the timer; returns the function that stops it. */
export function startAutoBackups(options: AutoBackupTimerOptions): () => void {
  let running = false;
  const look = async () => {
    if (running || options.config.backup.dir === undefined) return;
    running = true;
    try {
      const { runAutoBackup } = await import("../backup/index.ts");
      const outcome = await runAutoBackup({
        config: options.config.backup,
        paths: options.paths,
        version: options.version,
        write: (output, passphraseFile) =>
          backupInChild(options.paths.home, output, passphraseFile),
      });
      if (outcome.status === "written")
        options.logger.info("backup written", {
          file: outcome.file,
          bytes: outcome.bytes,
          removed: outcome.removed.length,
        });
      else if (outcome.status === "failed")
        options.logger.warn(`backup not written: ${outcome.message}`);
    } finally {
      running = false;
    }
  };
  const first = setTimeout(() => void look(), FIRST_LOOK_MS);
  const every = setInterval(() => void look(), LOOK_EVERY_MS);
  first.unref();
  every.unref();
  return () => {
    clearTimeout(first);
    clearInterval(every);
  };
}
