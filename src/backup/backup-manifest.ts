/**
 * What a backup says about itself. Two entries of its tar: `clawbox-backup/about.json`
 * first (format, program version, schema version, time), so a restore refuses a backup
 * from a newer version before it writes anything, and `clawbox-backup/manifest.json`
 * last, with every file's size and sha256 (known only once the file has been read) and
 * the models by name and hash. A restore checks every file against the manifest.
 */
import { ClawboxError } from "../errors/index.ts";
import { z } from "../schema/index.ts";

/** The container layout this program writes and reads. */
export const BACKUP_FORMAT = 1;
export const ABOUT_ENTRY = "clawbox-backup/about.json";
export const MANIFEST_ENTRY = "clawbox-backup/manifest.json";
/** Entries under `home/` are the home folder's files; `workspace/` a workspace outside it. */
export const HOME_PREFIX = "home/";
export const WORKSPACE_PREFIX = "workspace/";

/** A time for file names: `20261206T170218Z` (UTC, sorts by time). */
export function fileStamp(now: Date): string {
  return now
    .toISOString()
    .replace(/[-:]/g, "")
    .replace(/\.\d+Z$/, "Z");
}

const sha256 = z.string().check(z.regex(/^[0-9a-f]{64}$/));

export const aboutSchema = z.object({
  format: z.number().check(z.int(), z.positive()),
  /** The clawbox version that wrote it. */
  version: z.string(),
  /** Highest database migration applied (0 without a database). */
  schemaVersion: z.number().check(z.int(), z.minimum(0)),
  /** Every migration applied, so a restore can name one it does not know. */
  migrations: z.array(z.number().check(z.int())),
  createdAt: z.string(),
  /** Where the home was, for the restore's summary only. */
  home: z.string(),
  /** A workspace outside the home (absolute), restored to the same place. */
  externalWorkspace: z.optional(z.string()),
});
export type BackupAbout = z.infer<typeof aboutSchema>;

export const backupFileSchema = z.object({
  path: z.string(),
  size: z.number().check(z.int(), z.minimum(0)),
  mode: z.number().check(z.int()),
  sha256,
});
export type BackupFile = z.infer<typeof backupFileSchema>;

export const backupModelSchema = z.object({
  /** Folder name under `<home>/models`, the name `clawbox models pull` takes. */
  name: z.string(),
  files: z.array(z.object({ file: z.string(), size: z.number(), sha256 })),
});
export type BackupModel = z.infer<typeof backupModelSchema>;

export const manifestSchema = z.object({
  ...aboutSchema.shape,
  files: z.array(backupFileSchema),
  models: z.array(backupModelSchema),
  /** Entries of the home not backed up (symlinks, sockets), for the owner to see. */
  skipped: z.array(z.string()),
});
export type BackupManifest = z.infer<typeof manifestSchema>;

/** Parses one of the JSON entries, as damage when it is not what this program wrote. */
export function parseBackupJson<T>(
  bytes: Uint8Array,
  schema: { safeParse(v: unknown): { success: true; data: T } | { success: false } },
  entry: string,
): T {
  let raw: unknown;
  try {
    raw = JSON.parse(new TextDecoder().decode(bytes));
  } catch {
    raw = undefined;
  }
  const parsed = schema.safeParse(raw);
  if (!parsed.success)
    throw new ClawboxError("BACKUP_INVALID", `the backup's ${entry} is not valid`, {
      hint: "this is not a clawbox backup, or it is damaged",
    });
  return parsed.data;
}

/**
 * Refuses a backup this program cannot restore faithfully: a newer container format or
 * a database with migrations it does not know (written by a newer clawbox).
 */
export function checkRestorable(about: BackupAbout, known: readonly number[], version: string) {
  const unknown = about.migrations.filter((m) => !known.includes(m));
  if (about.format > BACKUP_FORMAT || unknown.length > 0) {
    throw new ClawboxError(
      "BACKUP_TOO_NEW",
      `this backup was made by clawbox ${about.version}, newer than this one (${version}): ` +
        (unknown.length > 0
          ? `its database has schema version ${about.schemaVersion} (migrations ${unknown.join(", ")} unknown here)`
          : `its format is ${about.format}, this program reads format ${BACKUP_FORMAT}`),
      { hint: `update clawbox to ${about.version} or later, then restore again` },
    );
  }
}
