/**
 * Lets a running `clawbox run` pick up model changes made to the config file from
 * outside (`clawbox models pull` in another shell, an editor): the file is polled by
 * mtime, re-validated, and a changed `models` section is handed to `onChange`. A file
 * that does not validate is reported once and ignored; the running settings stay.
 */
import { type Stats, unwatchFile, watchFile } from "node:fs";
import { type ClawboxConfig, loadConfig } from "../config/index.ts";
import { toClawboxError } from "../errors/index.ts";
import type { Logger } from "../system/index.ts";

export interface WatchModelSettingsOptions {
  file: string;
  env: Record<string, string | undefined>;
  initial: ClawboxConfig["models"];
  onChange: (models: ClawboxConfig["models"]) => void;
  logger: Logger;
  /** Poll interval (default 2000 ms: a stat every 2 s costs nothing on a Pi). */
  intervalMs?: number;
}

export function watchModelSettings(options: WatchModelSettingsOptions): () => void {
  let last = JSON.stringify(options.initial);
  const listener = (current: Stats, previous: Stats) => {
    if (current.mtimeMs === previous.mtimeMs && current.size === previous.size) return;
    try {
      const models = loadConfig({ file: options.file, env: options.env }).config.models;
      const text = JSON.stringify(models);
      if (text === last) return;
      last = text;
      options.onChange(models);
    } catch (error) {
      options.logger.warn("config file changed but does not validate; model settings kept", {
        error: toClawboxError(error).message,
      });
    }
  };
  watchFile(options.file, { interval: options.intervalMs ?? 2000, persistent: false }, listener);
  return () => unwatchFile(options.file, listener);
}
