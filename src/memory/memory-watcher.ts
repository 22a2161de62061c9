/**
 * Watches the workspace's memory files (MEMORY.md/memory.md at the root, everything
 * under memory/) and calls `onChange` once per burst of edits (debounced), so notes
 * edited over SSH are searchable moments later without a restart. Watch errors are
 * logged; the periodic index on search still catches up.
 */
import { existsSync, type FSWatcher, watch } from "node:fs";
import { join } from "node:path";
import type { Logger } from "../system/index.ts";
import { MEMORY_DIR, ROOT_MEMORY_FILES } from "./memory-files.ts";

export interface MemoryWatcher {
  close(): void;
}

export function watchMemoryFiles(
  workspace: string,
  onChange: () => void,
  logger: Logger,
  debounceMs = 400,
): MemoryWatcher {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let dirWatcher: FSWatcher | undefined;
  let rootWatcher: FSWatcher | undefined;
  let closed = false;
  const fire = () => {
    if (timer) clearTimeout(timer);
    timer = setTimeout(() => {
      timer = undefined;
      if (!closed) onChange();
    }, debounceMs);
  };
  const watchDir = () => {
    const dir = join(workspace, MEMORY_DIR);
    if (dirWatcher || !existsSync(dir)) return;
    try {
      dirWatcher = watch(dir, { recursive: true }, () => fire());
      dirWatcher.on("error", (error) => {
        logger.warn("memory watcher error", { error: String(error) });
        dirWatcher?.close();
        dirWatcher = undefined;
      });
    } catch (error) {
      logger.warn("cannot watch memory folder", { dir, error: String(error) });
    }
  };
  if (existsSync(workspace)) {
    try {
      rootWatcher = watch(workspace, (_event, name) => {
        const file = name?.toString();
        if (file === MEMORY_DIR) {
          watchDir();
          fire();
        } else if (file && (ROOT_MEMORY_FILES as readonly string[]).includes(file)) fire();
      });
      rootWatcher.on("error", (error) =>
        logger.warn("workspace watcher error", { error: String(error) }),
      );
    } catch (error) {
      logger.warn("cannot watch workspace", { workspace, error: String(error) });
    }
  }
  watchDir();
  return {
    close() {
      closed = true;
      if (timer) clearTimeout(timer);
      dirWatcher?.close();
      rootWatcher?.close();
    },
  };
}
