/**
 * Reads workspace files through a cache keyed by (path, mtime, size): unchanged files
 * are not re-read, and any change made over SSH is seen on the very next read because
 * every read stats the file. A watcher may also `invalidate` a path, which catches
 * same-size edits within the file system's mtime granularity. Values derived from a
 * file's text (a parsed SKILL.md front matter) are kept with that version of the file
 * and go when it changes, so a turn does not parse unchanged files again.
 */
import { readFileSync, statSync } from "node:fs";

interface CachedFile {
  mtimeMs: number;
  size: number;
  text: string;
  derived?: Map<string, unknown>;
}

export type CachedRead =
  | { ok: true; text: string; mtimeMs: number; size: number }
  | { ok: false; reason: "missing" | "not-a-file" | "unreadable"; error?: string };

export class FileCache {
  private readonly files = new Map<string, CachedFile>();
  /** Reads that were served from disk (for tests and the report). */
  diskReads = 0;

  read(path: string): CachedRead {
    let stat: ReturnType<typeof statSync>;
    try {
      stat = statSync(path);
    } catch (error) {
      this.files.delete(path);
      const code = (error as NodeJS.ErrnoException).code;
      if (code === "ENOENT" || code === "ENOTDIR") return { ok: false, reason: "missing" };
      return { ok: false, reason: "unreadable", error: String(code ?? error) };
    }
    if (!stat.isFile()) return { ok: false, reason: "not-a-file" };
    const hit = this.files.get(path);
    if (hit && hit.mtimeMs === stat.mtimeMs && hit.size === stat.size) {
      return { ok: true, text: hit.text, mtimeMs: hit.mtimeMs, size: hit.size };
    }
    try {
      const text = readFileSync(path, "utf8");
      this.diskReads += 1;
      this.files.set(path, { mtimeMs: stat.mtimeMs, size: stat.size, text });
      return { ok: true, text, mtimeMs: stat.mtimeMs, size: stat.size };
    } catch (error) {
      return {
        ok: false,
        reason: "unreadable",
        error: String((error as NodeJS.ErrnoException).code ?? error),
      };
    }
  }

  /**
   * `compute(text)` for the version of `path` the last `read` returned, computed once
   * per version and kind; undefined when that read failed (nothing is cached).
   */
  derive<T>(path: string, kind: string, compute: (text: string) => T): T | undefined {
    const file = this.files.get(path);
    if (!file) return undefined;
    file.derived ??= new Map();
    if (!file.derived.has(kind)) file.derived.set(kind, compute(file.text));
    return file.derived.get(kind) as T;
  }

  invalidate(path?: string): void {
    if (path === undefined) this.files.clear();
    else this.files.delete(path);
  }
}
