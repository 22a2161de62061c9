/**
 * The folders of saved KV-cache states: `<kvCacheDir>/<first 16 hex of the model's
 * sha256>/`, one per model file, each with a `model.json` naming the file it belongs to
 * (path, size, mtime, inode, sha256). That record is also the cache of the model's hash:
 * hashing a 1 GB model from an SD card takes ~20 s, so it is hashed again only when its
 * size, mtime or inode changed. A folder whose model file is gone, or was replaced by
 * another file at the same path, is removed when a provider opens the cache, and with it
 * the states only that model could load; stale temporary files of crashed writers too.
 */
import { existsSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { errorMessage } from "../../errors/index.ts";
import { z } from "../../schema/index.ts";
import { type Logger, processAlive, writeFileAtomic } from "../../system/index.ts";
import { sha256OfFile } from "./kv-state-scope.ts";

const MODEL_RECORD = "model.json";

const modelRecordSchema = z.object({
  path: z.string(),
  size: z.number(),
  mtimeMs: z.number(),
  ino: z.number(),
  sha256: z.string().check(z.regex(/^[0-9a-f]{64}$/)),
});
type ModelRecord = z.infer<typeof modelRecordSchema>;

export interface ModelFolder {
  dir: string;
  sha256: string;
}

function readRecord(dir: string): ModelRecord | undefined {
  try {
    const parsed = modelRecordSchema.safeParse(
      JSON.parse(readFileSync(join(dir, MODEL_RECORD), "utf8")),
    );
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

function sameFile(record: ModelRecord, stat: { size: number; mtimeMs: number; ino: number }) {
  return record.size === stat.size && record.mtimeMs === stat.mtimeMs && record.ino === stat.ino;
}

function subfolders(root: string): string[] {
  try {
    return readdirSync(root, { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => join(root, entry.name));
  } catch {
    return [];
  }
}

/**
 * The folder of the model at `modelPath` (created, with its record), after removing the
 * folders of models that are gone or replaced. Hashes the model only when no record
 * matches its size, mtime and inode.
 */
export async function openModelFolder(
  root: string,
  modelPath: string,
  logger?: Logger,
): Promise<ModelFolder> {
  const stat = statSync(modelPath);
  const current = { size: stat.size, mtimeMs: stat.mtimeMs, ino: stat.ino };
  let sha256: string | undefined;
  for (const dir of subfolders(root)) {
    const record = readRecord(dir);
    if (record?.path === modelPath && sameFile(record, current)) sha256 = record.sha256;
  }
  sha256 ??= await sha256OfFile(modelPath);
  for (const dir of subfolders(root)) {
    const record = readRecord(dir);
    const gone = !record || !existsSync(record.path);
    const replaced = record?.path === modelPath && record.sha256 !== sha256;
    if (gone || replaced) {
      logger?.info("removing saved KV-cache states of a model that is gone", {
        folder: dir,
        model: record?.path ?? "(no record)",
        reason: gone ? "model file missing" : "model file replaced",
      });
      rmSync(dir, { recursive: true, force: true });
    }
  }
  const dir = join(root, sha256.slice(0, 16));
  const record: ModelRecord = { path: modelPath, ...current, sha256 };
  const existing = readRecord(dir);
  if (!existing || existing.path !== modelPath || !sameFile(existing, current))
    writeFileAtomic(join(dir, MODEL_RECORD), `${JSON.stringify(record)}\n`);
  removeStaleTemps(dir, logger);
  return { dir, sha256 };
}

/** Temp files are `.<id>.<pid>.<random>.tmp`: removed once their writer is gone. */
function removeStaleTemps(dir: string, logger?: Logger): void {
  for (const name of readdirSync(dir)) {
    const match = /^\..*\.(\d+)\.[0-9a-f]+\.tmp$/.exec(name);
    if (!match || processAlive(Number(match[1]))) continue;
    try {
      rmSync(join(dir, name), { force: true });
    } catch (error) {
      logger?.debug("could not remove a stale KV state temp file", {
        file: name,
        error: errorMessage(error),
      });
    }
  }
}
