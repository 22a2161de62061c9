/**
 * The timer of automatic backups in `clawbox run` (docs/BACKUP.md, "Automatic
 * backups"): the first look 15 s after READY, then every hour; the backup area is
 * imported only when `backup.dir` is set and a look is due, so it costs the service's
 * start nothing. The section is read at each look, so an edited config applies. An
 * outcome other than "written" or "not due" is one warning line, never an error: a
 * backup never fails a turn.
 */
import type { BackupConfig } from "../config/index.ts";
import type { HomePaths, Logger } from "../system/index.ts";

const FIRST_LOOK_MS = 15_000;
const LOOK_EVERY_MS = 3_600_000;

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
