/**
 * Automatic backups (docs/BACKUP.md, "Automatic backups"): `clawbox run` writes one to
 * `dir` (a USB stick or a NAS mount) every `everyHours`, keeping the newest `keep`. Off
 * while `dir` is unset. A missing or full target is a warning in the log and in
 * `clawbox doctor`, never a failed turn.
 */
import { z } from "../../schema/index.ts";

const nonEmpty = z.string().check(z.minLength(1));

export const backupSection = z.prefault(
  z.object({
    /** Folder for automatic backups; unset: none are made. */
    dir: z.optional(nonEmpty),
    /** Hours between two automatic backups (default 24). */
    everyHours: z._default(z.number().check(z.minimum(1), z.maximum(24 * 90)), 24),
    /** Automatic backups kept in `dir`, newest first; older ones are removed (default 7). */
    keep: z._default(z.number().check(z.int(), z.minimum(1), z.maximum(1000)), 7),
    /** A file whose first line is the passphrase (chmod 600); needed with `dir`. */
    passphraseFile: z.optional(nonEmpty),
  }),
  {},
);

export type BackupConfig = z.infer<typeof backupSection>;
