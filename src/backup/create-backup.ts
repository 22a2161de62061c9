/**
 * `clawbox backup create`: one file in the age format (passphrase → scrypt → ChaCha20-
 * Poly1305 STREAM, through the maintained `age-encryption` library) holding a tar of the
 * home. The database goes in as SQLite's own consistent copy (`VACUUM INTO`, one read
 * transaction, so a service answering meanwhile in WAL mode neither blocks nor tears it);
 * every other file is read once, hashed and written in the same pass. Nothing is written
 * in plain text: the snapshot sits in a private folder in the home, beside the database
 * it copies (never on the backup's medium), and is removed; the output appears under its
 * name only when complete (temp + rename).
 */
import { createHash } from "node:crypto";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { basename, dirname, join, relative, resolve, sep } from "node:path";
import { ClawboxError, errorMessage } from "../errors/index.ts";
import { openDatabase } from "../store/index.ts";
import { type HomePaths, writeStreamAtomic } from "../system/index.ts";
import {
  ABOUT_ENTRY,
  BACKUP_FORMAT,
  type BackupAbout,
  type BackupFile,
  type BackupManifest,
  fileStamp,
  HOME_PREFIX,
  MANIFEST_ENTRY,
  WORKSPACE_PREFIX,
} from "./backup-manifest.ts";
import { encryptStream } from "./encryption.ts";
import { listModels, walkFiles } from "./home-files.ts";
import { type TarFileEntry, tarStream } from "./tar-stream.ts";

export interface CreateBackupOptions {
  paths: HomePaths;
  output: string;
  passphrase: string;
  /** The program's version, recorded in the backup. */
  version: string;
  now?: Date;
}

export interface CreatedBackup {
  file: string;
  bytes: number;
  manifest: BackupManifest;
}

const SCRATCH_PREFIX = ".clawbox-backup-";
/** A scratch folder this old belongs to a backup that was killed, not one still running. */
const STALE_SCRATCH_MS = 6 * 3_600_000;

function removeStaleScratch(home: string, now: Date): void {
  for (const name of readdirSync(home)) {
    if (!name.startsWith(SCRATCH_PREFIX)) continue;
    const stat = statSync(join(home, name), { throwIfNoEntry: false });
    if (stat && now.getTime() - stat.mtimeMs > STALE_SCRATCH_MS)
      rmSync(join(home, name), { recursive: true, force: true });
  }
}

function noSpaceError(error: unknown, output: string): ClawboxError | undefined {
  const code = (error as { code?: string }).code;
  const sqliteFull = /database or disk is full/i.test(errorMessage(error));
  if (code !== "ENOSPC" && code !== "EDQUOT" && !sqliteFull) return undefined;
  return new ClawboxError(
    "BACKUP_NO_SPACE",
    `the disk is full: no room for the backup ${sqliteFull ? "database copy in the home" : `in ${dirname(output)}`}; nothing was written`,
    { hint: "free some space (df -h), or write the backup elsewhere with -o", cause: error },
  );
}

const DATABASE_FILES = ["clawbox.db", "clawbox.db-wal", "clawbox.db-shm", "clawbox.db-journal"];

function inside(root: string, path: string): string | undefined {
  const rel = relative(root, path);
  if (rel === "" || rel.startsWith("..") || resolve(root, rel) !== path) return undefined;
  return rel.split(sep).join("/");
}

/**
 * SQLite's consistent copy of the live database into `target`; the applied migrations.
 * Session leases (turns in flight on this box) are dropped from the copy: a restored
 * box has no such turns, and must not wait for them to expire.
 */
function snapshotDatabase(database: string, target: string): number[] {
  const { db } = openDatabase({ path: database, readonly: true });
  try {
    db.run("VACUUM INTO ?", [target]);
  } finally {
    db.close();
  }
  const { db: copy } = openDatabase({ path: target, migrations: [] });
  try {
    const tables = copy.query("SELECT name FROM sqlite_schema WHERE type = 'table'").all() as {
      name: string;
    }[];
    if (tables.some((t) => t.name === "session_leases")) copy.run("DELETE FROM session_leases");
    copy.run("PRAGMA journal_mode = DELETE");
    return (
      copy.query("SELECT version FROM schema_migrations ORDER BY version").all() as {
        version: number;
      }[]
    ).map((r) => r.version);
  } finally {
    copy.close();
  }
}

async function* fileChunks(path: string): AsyncGenerator<Uint8Array> {
  for await (const chunk of Bun.file(path).stream()) yield chunk;
}

export async function createBackup(options: CreateBackupOptions): Promise<CreatedBackup> {
  const { paths } = options;
  const output = resolve(options.output);
  const now = options.now ?? new Date();
  const outDir = dirname(output);
  if (!statSync(outDir, { throwIfNoEntry: false })?.isDirectory())
    throw new ClawboxError(
      "NOT_FOUND",
      `cannot write the backup: folder ${outDir} does not exist`,
      {
        hint: "create it first, or name another file with -o",
      },
    );
  removeStaleScratch(paths.home, now);
  // The database copy is plain text: it stays beside the database it copies, never on
  // the backup's medium (a USB stick), and goes when the backup is done or fails.
  const scratch = mkdtempSync(join(paths.home, SCRATCH_PREFIX));
  try {
    const hasDatabase = statSync(paths.database, { throwIfNoEntry: false })?.isFile() ?? false;
    const snapshot = join(scratch, "clawbox.db");
    const migrations = hasDatabase ? snapshotDatabase(paths.database, snapshot) : [];
    const workspaceInHome = inside(paths.home, paths.workspace) !== undefined;
    const configInHome = inside(paths.home, paths.configFile);
    const outputInHome = inside(paths.home, output);
    const scratchInHome = inside(paths.home, scratch);
    const modelsInHome = inside(paths.home, paths.modelsDir);
    const about: BackupAbout = {
      format: BACKUP_FORMAT,
      version: options.version,
      schemaVersion: migrations.at(-1) ?? 0,
      migrations,
      createdAt: now.toISOString(),
      home: paths.home,
      ...(workspaceInHome ? {} : { externalWorkspace: paths.workspace }),
    };
    const home = walkFiles(paths.home, (path) => {
      if (DATABASE_FILES.includes(path) || path === modelsInHome || path === scratchInHome)
        return true;
      if (path === outputInHome) return true;
      // The active config goes in as home/clawbox.json (below); an unused one stays out.
      if (path === "clawbox.json" && configInHome !== "clawbox.json") return true;
      // Temp files of interrupted atomic writes and of other backups being written.
      return /(^|\/)\.[^/]*\.tmp$/.test(path) || /(^|\/)\.clawbox-backup-[^/]*$/.test(path);
    });
    const workspace = workspaceInHome
      ? { files: [], skipped: [] }
      : walkFiles(paths.workspace, () => false);
    const files: BackupFile[] = [];
    const entry = (path: string, mode: number, mtimeMs: number, bytes: Uint8Array) => {
      files.push({
        path,
        size: bytes.length,
        mode,
        sha256: createHash("sha256").update(bytes).digest("hex"),
      });
      return { path, size: bytes.length, mode, mtimeMs, body: [bytes] };
    };
    const json = (path: string, value: unknown): TarFileEntry => {
      const bytes = new TextEncoder().encode(`${JSON.stringify(value, null, 2)}\n`);
      return { path, size: bytes.length, mode: 0o600, mtimeMs: now.getTime(), body: [bytes] };
    };
    const models = statSync(paths.modelsDir, { throwIfNoEntry: false })?.isDirectory()
      ? listModels(paths.modelsDir)
      : [];
    const manifestOf = (): BackupManifest => ({
      ...about,
      files,
      models,
      skipped: [...home.skipped, ...workspace.skipped.map((p) => `${WORKSPACE_PREFIX}${p}`)],
    });
    async function* entries(): AsyncGenerator<TarFileEntry> {
      yield json(ABOUT_ENTRY, about);
      if (hasDatabase) {
        const size = statSync(snapshot).size;
        const hash = createHash("sha256");
        const path = `${HOME_PREFIX}clawbox.db`;
        async function* hashed() {
          for await (const chunk of fileChunks(snapshot)) {
            hash.update(chunk);
            yield chunk;
          }
          files.push({ path, size, mode: 0o600, sha256: hash.digest("hex") });
        }
        yield { path, size, mode: 0o600, mtimeMs: now.getTime(), body: hashed() };
      }
      if (configInHome !== "clawbox.json" && statSync(paths.configFile, { throwIfNoEntry: false }))
        yield entry(
          `${HOME_PREFIX}clawbox.json`,
          0o600,
          now.getTime(),
          readFileSync(paths.configFile),
        );
      for (const file of home.files)
        yield entry(
          `${HOME_PREFIX}${file.path}`,
          file.mode,
          file.mtimeMs,
          readFileSync(file.absolute),
        );
      for (const file of workspace.files)
        yield entry(
          `${WORKSPACE_PREFIX}${file.path}`,
          file.mode,
          file.mtimeMs,
          readFileSync(file.absolute),
        );
      yield json(MANIFEST_ENTRY, manifestOf());
    }
    let bytes = 0;
    const encrypted = await encryptStream(tarStream(entries()), options.passphrase);
    async function* counted() {
      for await (const chunk of encrypted) {
        bytes += chunk.length;
        yield chunk;
      }
    }
    await writeStreamAtomic(output, counted(), { mode: 0o600 });
    return { file: output, bytes, manifest: manifestOf() };
  } catch (error) {
    throw noSpaceError(error, output) ?? error;
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

/** The default name of a backup file: `clawbox-backup-<home name>-<UTC time>.age`. */
export function defaultBackupName(home: string, now = new Date()): string {
  const stamp = fileStamp(now);
  return `clawbox-backup-${basename(home).replace(/^\./, "") || "home"}-${stamp}.age`;
}
