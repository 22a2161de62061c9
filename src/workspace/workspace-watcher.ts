/**
 * Watches the workspace (and other folders such as skill dirs) and invalidates the file
 * cache on change, so an edit over SSH is used on the next turn without a restart. The
 * cache's stat check already catches most edits; the watcher covers the rest. A folder
 * that cannot be watched is logged, never fatal.
 */
import { type FSWatcher, watch } from "node:fs";
import { join } from "node:path";
import type { Logger } from "../system/index.ts";
import type { FileCache } from "./file-cache.ts";

export class WorkspaceWatcher {
  private readonly watchers = new Map<string, FSWatcher>();
  /** Bumped on every change; skill lists and other derived data key on it. */
  generation = 0;

  constructor(
    private readonly cache: FileCache,
    private readonly logger?: Logger,
  ) {}

  watch(dir: string): void {
    if (this.watchers.has(dir)) return;
    try {
      const watcher = watch(dir, { persistent: false }, (_event, filename) => {
        this.generation += 1;
        if (filename) this.cache.invalidate(join(dir, filename.toString()));
        else this.cache.invalidate();
      });
      watcher.on("error", (error) => {
        this.logger?.warn("workspace watcher stopped", { dir, error: String(error) });
        this.watchers.delete(dir);
      });
      this.watchers.set(dir, watcher);
    } catch (error) {
      this.logger?.debug("cannot watch folder", { dir, error: String(error) });
    }
  }

  close(): void {
    for (const watcher of this.watchers.values()) watcher.close();
    this.watchers.clear();
  }
}
