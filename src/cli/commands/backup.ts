/**
 * `clawbox backup create|restore`: the whole box in one encrypted file and back
 * (src/backup, docs/BACKUP.md). Create works while `clawbox run` serves; restore goes
 * onto a fresh home, or with --force replaces one and keeps the old home aside.
 */
import { join, resolve } from "node:path";
import { createBackup, defaultBackupName, restoreBackup } from "../../backup/index.ts";
import { ClawboxError } from "../../errors/index.ts";
import { MIGRATIONS } from "../../store/index.ts";
import { formatBytes, type HomePaths, useServiceJitPolicy } from "../../system/index.ts";
import type { CliContext } from "../cli-context.ts";
import type { Command } from "../command.ts";
import { EXIT } from "../exit-codes.ts";
import { parseWith } from "../parse-args.ts";
import { readPassphrase } from "../read-passphrase.ts";
import { VERSION } from "../version.ts";

const files = (n: number) => `${n} file${n === 1 ? "" : "s"}`;

const CREATE = {
  options: { output: { type: "string", short: "o" }, "passphrase-file": { type: "string" } },
  positionals: false,
} as const;
const RESTORE = {
  options: { "passphrase-file": { type: "string" }, force: { type: "boolean" } },
  positionals: true,
} as const;

/** The workspace as configured; a config that does not load still backs up the default one. */
function backupPaths(ctx: CliContext): HomePaths {
  try {
    return ctx.resolvedPaths();
  } catch (error) {
    if (!(error instanceof ClawboxError)) throw error;
    ctx.stderr.write(
      `warning: ${error.message}; backing up the home as it is (workspace: ${ctx.paths.workspace})\n`,
    );
    return ctx.paths;
  }
}

async function passphraseOrInterrupt(
  ctx: CliContext,
  file: string | undefined,
  confirm: boolean,
): Promise<string | number> {
  try {
    return await readPassphrase({
      file,
      confirm,
      stderr: ctx.stderr,
      usage: "--passphrase-file",
    });
  } catch (error) {
    if (error instanceof ClawboxError && error.code === "ABORTED") return EXIT.interrupted;
    throw error;
  }
}

export const backupCommand: Command = {
  name: "backup",
  args: { subcommands: { create: CREATE, restore: RESTORE } },
  usage: [
    "Usage: clawbox backup <create|restore> [options]",
    "  create [-o FILE] [--passphrase-file FILE]   write an encrypted backup of the home",
    "                                  (default FILE: ./clawbox-backup-<home>-<time>.age)",
    "  restore FILE [--passphrase-file FILE] [--force]",
    "                                  restore onto this home (fresh, or --force: the old",
    "                                  one is kept as <home>.before-restore-<time>)",
    "  Without --passphrase-file the terminal asks for the passphrase.",
  ].join("\n"),
  async run(ctx, args) {
    // scrypt is plain JavaScript: held in the interpreter, as the compiled binary starts
    // every command (src/system/jit-policy.ts), one derivation takes minutes, not seconds.
    useServiceJitPolicy(1);
    const [sub, ...rest] = args;
    if (sub === "create") {
      const { values } = parseWith(rest, CREATE);
      const paths = backupPaths(ctx);
      const output = resolve(values.output ?? join(process.cwd(), defaultBackupName(ctx.home)));
      const passphrase = await passphraseOrInterrupt(ctx, values["passphrase-file"], true);
      if (typeof passphrase === "number") return passphrase;
      const made = await createBackup({ paths, output, passphrase, version: VERSION });
      const { manifest } = made;
      ctx.stdout.write(
        `backup written to ${made.file} (${formatBytes(made.bytes)}, ${files(manifest.files.length)}, schema ${manifest.schemaVersion})\n`,
      );
      if (manifest.models.length > 0)
        ctx.stdout.write(
          `models recorded by name and hash, not included: ${manifest.models.map((m) => m.name).join(", ")}\n`,
        );
      if (manifest.skipped.length > 0)
        ctx.stdout.write(`not backed up (links, sockets): ${manifest.skipped.join(", ")}\n`);
      return EXIT.ok;
    }
    const { values, positionals } = parseWith(rest, RESTORE);
    const file = positionals[0];
    if (!file || positionals.length > 1)
      throw new ClawboxError("CLI_USAGE", "restore needs exactly one backup FILE");
    const passphrase = await passphraseOrInterrupt(ctx, values["passphrase-file"], false);
    if (typeof passphrase === "number") return passphrase;
    const restored = await restoreBackup({
      file: resolve(file),
      passphrase,
      home: ctx.home,
      force: values.force ?? false,
      knownMigrations: MIGRATIONS.map((m) => m.version),
      version: VERSION,
    });
    const { manifest } = restored;
    ctx.stdout.write(
      `restored the backup of ${manifest.createdAt} (clawbox ${manifest.version}, ${files(manifest.files.length)}) into ${ctx.home}\n`,
    );
    for (const aside of restored.keptAside) ctx.stdout.write(`the old data is kept at ${aside}\n`);
    if (manifest.externalWorkspace)
      ctx.stdout.write(`workspace restored to ${manifest.externalWorkspace}\n`);
    if (ctx.env.CLAWBOX_CONFIG)
      ctx.stdout.write(
        `note: CLAWBOX_CONFIG points at ${ctx.env.CLAWBOX_CONFIG}; the restored config is ${join(ctx.home, "clawbox.json")}\n`,
      );
    for (const model of manifest.models)
      ctx.stdout.write(
        `model ${model.name} is not in the backup: pull it again (clawbox models pull ${model.name})\n`,
      );
    return EXIT.ok;
  },
};
