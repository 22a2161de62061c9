/**
 * Which files of a home a backup carries. Everything under the home is the box's own
 * state (config with its secrets, console secret, workspace, skills, SSH known hosts,
 * channel state files), so the rule is "all of it" with three exceptions: the database
 * files (a consistent snapshot goes in instead), the models folder (recorded by name
 * and hash, pulled again) and whatever the caller names (the backup being written).
 * Symlinks, sockets and devices are listed as skipped: restoring one could point a new
 * box at a path the backup never held.
 */
import { createHash } from "node:crypto";
import { closeSync, lstatSync, openSync, readdirSync, readFileSync, readSync } from "node:fs";
import { join, relative, sep } from "node:path";
import type { BackupModel } from "./backup-manifest.ts";

export interface FoundFile {
  /** Path relative to the folder walked, with `/` separators. */
  path: string;
  absolute: string;
  mode: number;
  mtimeMs: number;
}

export interface WalkResult {
  files: FoundFile[];
  skipped: string[];
}

/** Regular files under `root`, sorted, minus `exclude(relativePath)`; others listed as skipped. */
export function walkFiles(root: string, exclude: (path: string) => boolean): WalkResult {
  const files: FoundFile[] = [];
  const skipped: string[] = [];
  const visit = (dir: string) => {
    let names: string[];
    try {
      names = readdirSync(dir).sort();
    } catch {
      return;
    }
    for (const name of names) {
      const absolute = join(dir, name);
      const path = relative(root, absolute).split(sep).join("/");
      if (exclude(path)) continue;
      const stat = lstatSync(absolute, { throwIfNoEntry: false });
      if (!stat) continue;
      if (stat.isDirectory()) visit(absolute);
      else if (stat.isFile())
        files.push({ path, absolute, mode: stat.mode & 0o777, mtimeMs: stat.mtimeMs });
      else skipped.push(path);
    }
  };
  visit(root);
  return { files, skipped };
}

/** sha256 of a file read in 1 MiB pieces (a model file is never read whole). */
export function hashFile(path: string): string {
  const hash = createHash("sha256");
  const fd = openSync(path, "r");
  try {
    const buffer = Buffer.alloc(1 << 20);
    for (;;) {
      const n = readSync(fd, buffer, 0, buffer.length, null);
      if (n === 0) break;
      hash.update(buffer.subarray(0, n));
    }
  } finally {
    closeSync(fd);
  }
  return hash.digest("hex");
}

/** The sha256 `clawbox models pull` recorded for `file`, when its info file names it. */
function recordedHash(dir: string, file: string): string | undefined {
  try {
    const info = JSON.parse(readFileSync(join(dir, "clawbox-model.json"), "utf8")) as {
      file?: unknown;
      sha256?: unknown;
    };
    const named = typeof info.file === "string" ? info.file : "model.onnx";
    if (named === file && typeof info.sha256 === "string" && /^[0-9a-f]{64}$/.test(info.sha256))
      return info.sha256;
  } catch {
    // No info file: the hash is computed.
  }
  return undefined;
}

/**
 * The models under `modelsDir` by name (a folder, or a file placed there by hand) with
 * each file's size and sha256: the hash `models pull` verified when it recorded one, else
 * computed (minutes for gigabytes on an SD card; said in docs/BACKUP.md).
 */
export function listModels(modelsDir: string): BackupModel[] {
  const { files } = walkFiles(modelsDir, () => false);
  const byName = new Map<string, BackupModel>();
  for (const found of files) {
    const slash = found.path.indexOf("/");
    const name = slash < 0 ? found.path : found.path.slice(0, slash);
    const file = slash < 0 ? found.path : found.path.slice(slash + 1);
    const dir = join(modelsDir, name);
    const model = byName.get(name) ?? { name, files: [] };
    byName.set(name, model);
    model.files.push({
      file,
      size: lstatSync(found.absolute).size,
      sha256: recordedHash(dir, file) ?? hashFile(found.absolute),
    });
  }
  return [...byName.values()];
}
