/**
 * `clawbox backup restore`: the backup is decrypted and unpacked into a staging folder
 * beside the home (same filesystem), every file checked against the manifest, and only
 * then swapped in with two renames: the old home (when there is one) to
 * `<home>.before-restore-<time>`, the staging folder to the home. Until that moment the
 * home is not touched, so a wrong passphrase, a damaged or cut-short file, a backup from
 * a newer clawbox or a disk that fills up ends with the staging folder removed and the
 * home exactly as it was.
 */
import { createHash } from "node:crypto";
import {
  closeSync,
  existsSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readdirSync,
  rmSync,
  writeSync,
} from "node:fs";
import { basename, dirname, join } from "node:path";
import { ClawboxError, errorMessage } from "../errors/index.ts";
import { renameDurable } from "../system/index.ts";
import {
  ABOUT_ENTRY,
  aboutSchema,
  type BackupAbout,
  type BackupManifest,
  checkRestorable,
  fileStamp,
  HOME_PREFIX,
  MANIFEST_ENTRY,
  manifestSchema,
  parseBackupJson,
  WORKSPACE_PREFIX,
} from "./backup-manifest.ts";
import { decryptFile } from "./encryption.ts";
import { readTar } from "./tar-stream.ts";

export interface RestoreBackupOptions {
  file: string;
  passphrase: string;
  home: string;
  /** Replace a home (or outside workspace) that holds data, keeping the old one aside. */
  force: boolean;
  /** Migrations this program knows: a backup with others is from a newer version. */
  knownMigrations: readonly number[];
  version: string;
  now?: Date;
}

export interface RestoredBackup {
  manifest: BackupManifest;
  /** Where the replaced home (and workspace) were moved, when there were any. */
  keptAside: string[];
}

/** One folder being restored: where it goes, where it is staged. */
interface Target {
  dir: string;
  staging: string;
  prefix: string;
}

function hasData(dir: string): boolean {
  try {
    return readdirSync(dir).length > 0;
  } catch {
    return false;
  }
}

function damaged(why: string): ClawboxError {
  return new ClawboxError("BACKUP_INVALID", `the backup is damaged: ${why}; nothing was changed`, {
    hint: "use another copy of the backup",
  });
}

async function collect(body: AsyncIterable<Uint8Array>, limit: number): Promise<Uint8Array> {
  const parts: Uint8Array[] = [];
  let length = 0;
  for await (const part of body) {
    length += part.length;
    if (length > limit) throw damaged("a manifest entry is too large");
    parts.push(part);
  }
  return Buffer.concat(parts, length);
}

function fsyncPath(path: string): void {
  const fd = openSync(path, "r");
  try {
    fsyncSync(fd);
  } catch {
    // Some filesystems refuse fsync on a folder; the file data was synced already.
  } finally {
    closeSync(fd);
  }
}

/** Writes one entry's bytes to `path` (new file, its mode), returning its sha256. */
async function writeEntry(path: string, mode: number, body: AsyncIterable<Uint8Array>) {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  const hash = createHash("sha256");
  let size = 0;
  const fd = openSync(path, "wx", mode & 0o777);
  try {
    for await (const chunk of body) {
      hash.update(chunk);
      size += chunk.length;
      let offset = 0;
      while (offset < chunk.length) offset += writeSync(fd, chunk, offset, chunk.length - offset);
    }
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  return { sha256: hash.digest("hex"), size };
}

function diskFull(error: unknown, home: string): ClawboxError | undefined {
  const code = (error as { code?: string }).code;
  if (code !== "ENOSPC" && code !== "EDQUOT") return undefined;
  return new ClawboxError(
    "BACKUP_NO_SPACE",
    `the disk is full: the backup does not fit beside ${home}; nothing was changed`,
    { hint: "free some space (df -h) and restore again", cause: error },
  );
}

/** Unpacks the backup into the targets' staging folders; returns the checked manifest. */
async function unpack(options: RestoreBackupOptions, stage: (about: BackupAbout) => Target[]) {
  let about: BackupAbout | undefined;
  let targets: Target[] = [];
  let manifest: BackupManifest | undefined;
  const written = new Map<string, { sha256: string; size: number }>();
  for await (const entry of readTar(decryptFile(options.file, options.passphrase))) {
    if (manifest) throw damaged(`${entry.path} follows the manifest`);
    if (!about) {
      if (entry.path !== ABOUT_ENTRY) throw damaged(`it does not start with ${ABOUT_ENTRY}`);
      about = parseBackupJson(await collect(entry.body, 1 << 20), aboutSchema, ABOUT_ENTRY);
      checkRestorable(about, options.knownMigrations, options.version);
      targets = stage(about);
      continue;
    }
    if (entry.path === MANIFEST_ENTRY) {
      manifest = parseBackupJson(await collect(entry.body, 64 << 20), manifestSchema, entry.path);
      continue;
    }
    const target = targets.find((t) => entry.path.startsWith(t.prefix));
    if (!target) throw damaged(`unexpected entry ${entry.path}`);
    if (written.has(entry.path)) throw damaged(`${entry.path} appears twice`);
    const path = join(target.staging, entry.path.slice(target.prefix.length));
    written.set(entry.path, await writeEntry(path, entry.mode, entry.body));
  }
  if (!about || !manifest) throw damaged("it ends before its manifest (cut short?)");
  if (manifest.files.length !== written.size) throw damaged("its file list does not match");
  for (const file of manifest.files) {
    const got = written.get(file.path);
    if (!got || got.sha256 !== file.sha256 || got.size !== file.size)
      throw damaged(`${file.path} does not match its recorded hash`);
  }
  for (const target of targets) fsyncPath(target.staging);
  return { manifest, targets };
}

export async function restoreBackup(options: RestoreBackupOptions): Promise<RestoredBackup> {
  const now = options.now ?? new Date();
  const stamp = fileStamp(now);
  const refuseIfData = (dir: string, what: string) => {
    if (!options.force && hasData(dir))
      throw new ClawboxError(
        "BACKUP_TARGET_NOT_EMPTY",
        `${what} ${dir} already holds data; nothing was changed`,
        {
          hint: `restore onto a fresh home (--home), or add --force to replace it (the old one is kept as ${dir}.before-restore-${stamp})`,
        },
      );
  };
  refuseIfData(options.home, "the home");
  if (!existsSync(options.file))
    throw new ClawboxError("NOT_FOUND", `no backup file at ${options.file}`);
  const created: string[] = [];
  const stage = (about: BackupAbout): Target[] => {
    const targets: Target[] = [{ dir: options.home, staging: "", prefix: HOME_PREFIX }];
    if (about.externalWorkspace) {
      refuseIfData(about.externalWorkspace, "the workspace");
      targets.push({ dir: about.externalWorkspace, staging: "", prefix: WORKSPACE_PREFIX });
    }
    for (const target of targets) {
      target.staging = join(dirname(target.dir), `.${basename(target.dir)}.restore-${stamp}`);
      mkdirSync(target.staging, { mode: 0o700 });
      created.push(target.staging);
    }
    return targets;
  };
  let unpacked: Awaited<ReturnType<typeof unpack>>;
  try {
    unpacked = await unpack(options, stage);
  } catch (error) {
    for (const dir of created) rmSync(dir, { recursive: true, force: true });
    throw diskFull(error, options.home) ?? error;
  }
  // The swap: each target's old folder aside, then its staging folder in. A failure
  // puts back what was already moved.
  const keptAside: string[] = [];
  const undo: (() => void)[] = [];
  try {
    for (const target of unpacked.targets) {
      if (existsSync(target.dir)) {
        const aside = `${target.dir}.before-restore-${stamp}`;
        renameDurable(target.dir, aside);
        undo.push(() => renameDurable(aside, target.dir));
        if (hasData(aside)) keptAside.push(aside);
      }
      renameDurable(target.staging, target.dir);
      undo.push(() => renameDurable(target.dir, target.staging));
    }
  } catch (error) {
    for (const step of undo.reverse()) {
      try {
        step();
      } catch {
        // Best effort: the message below names the folders.
      }
    }
    for (const dir of created) rmSync(dir, { recursive: true, force: true });
    throw new ClawboxError(
      "BACKUP_INVALID",
      `could not put the restored home in place: ${errorMessage(error)}`,
      { hint: `check ${options.home} and its .before-restore-${stamp} copy`, cause: error },
    );
  }
  // An empty old home (a fresh box) is not worth keeping aside.
  for (const target of unpacked.targets) {
    const aside = `${target.dir}.before-restore-${stamp}`;
    if (existsSync(aside) && !hasData(aside)) rmSync(aside, { recursive: true, force: true });
  }
  return { manifest: unpacked.manifest, keptAside };
}
