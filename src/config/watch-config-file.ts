/**
 * Lets a running `clawbox run` see edits made to its config file from outside (an editor
 * over SSH, `clawbox models pull`, `clawbox pairing approve` in another shell): the file
 * is polled by mtime and size, re-validated, and the new config handed to `onChange`
 * (the caller decides which sections it can apply live). A file that does not validate
 * is reported through `onInvalid` and ignored; the running settings stay.
 */
import { type Stats, unwatchFile, watchFile } from "node:fs";
import { toClawboxError } from "../errors/index.ts";
import { loadConfig } from "./load-config.ts";
import type { ClawboxConfig } from "./schema.ts";

export interface WatchConfigFileOptions {
  file: string;
  env: Record<string, string | undefined>;
  onChange: (config: ClawboxConfig) => void;
  /** The edited file does not load (`message` names the keys, never secret values). */
  onInvalid: (message: string) => void;
  /** Poll interval (default 2000 ms: a stat every 2 s costs nothing on a Pi). */
  intervalMs?: number;
}

export function watchConfigFile(options: WatchConfigFileOptions): () => void {
  const listener = (current: Stats, previous: Stats) => {
    if (current.mtimeMs === previous.mtimeMs && current.size === previous.size) return;
    try {
      options.onChange(loadConfig({ file: options.file, env: options.env }).config);
    } catch (error) {
      options.onInvalid(toClawboxError(error).message);
    }
  };
  watchFile(options.file, { interval: options.intervalMs ?? 2000, persistent: false }, listener);
  return () => unwatchFile(options.file, listener);
}
