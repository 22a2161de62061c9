/** `clawbox models list|pull`: the model manifest and resumable, verified downloads. */
import { ClawboxError } from "../../errors/index.ts";
import {
  createProgressPrinter,
  findManifestModel,
  installedModelDir,
  loadManifest,
  pullModel,
  readInstalledModel,
} from "../../models/index.ts";
import type { Command } from "../command.ts";
import { parseCommandArgs } from "../parse-args.ts";

export const modelsCommand: Command = {
  name: "models",
  summary: "list or pull models from the manifest (embedding models)",
  usage: [
    "Usage: clawbox models <list|pull> [options]",
    "  list [--json]                          manifest models and whether each is installed",
    "  pull NAME [--allow-unverified]         download into <home>/models/NAME (resumes, verifies sha256)",
    "  --manifest FILE                        use another manifest (default models/manifest.json)",
  ].join("\n"),
  async run(ctx, args) {
    const [sub, ...rest] = args;
    const { values, positionals } = parseCommandArgs(rest, {
      json: { type: "boolean" },
      "allow-unverified": { type: "boolean" },
      manifest: { type: "string" },
    });
    const manifest = values.manifest ? loadManifest(values.manifest) : loadManifest();
    const modelsDir = ctx.paths.modelsDir;
    if (sub === "list") {
      const rows = manifest.models.map((m) => ({
        name: m.name,
        kind: m.kind,
        dimension: m.dimension,
        pooling: m.pooling,
        quantized: m.quantized,
        size: m.files.map((f) => f.approxSize ?? (f.size ? `${f.size} B` : "?")).join(" + "),
        verified: m.files.every((f) => f.sha256 !== null),
        installed: readInstalledModel(installedModelDir(modelsDir, m.name)) !== undefined,
      }));
      if (values.json) ctx.stdout.write(`${JSON.stringify(rows, null, 2)}\n`);
      else {
        for (const r of rows) {
          ctx.stdout.write(
            `${r.installed ? "*" : " "} ${r.name}  ${r.kind} ${r.dimension}d ${r.pooling}${r.quantized ? " int8" : ""}  ${r.size}${r.verified ? "" : "  (sha256 unverified)"}\n`,
          );
        }
      }
      return 0;
    }
    if (sub === "pull") {
      const name = positionals[0];
      if (!name) throw new ClawboxError("CLI_USAGE", "pull needs a model NAME");
      const model = findManifestModel(manifest, name);
      const progress = createProgressPrinter(
        (t) => ctx.stderr.write(t),
        Boolean(process.stderr.isTTY),
      );
      try {
        const result = await pullModel(model, {
          modelsDir,
          allowUnverified: values["allow-unverified"] ?? false,
          onProgress: (p) => progress.update(p),
        });
        progress.done();
        for (const f of result.files) {
          ctx.stdout.write(
            `${f.path}: ${f.bytes} bytes, sha256 ${f.sha256} ${f.verified ? "(verified)" : "(NOT verified: no sha256 in the manifest)"}${f.resumedFrom > 0 ? `, resumed at ${f.resumedFrom}` : ""}\n`,
          );
        }
        for (const s of result.skipped) ctx.stdout.write(`${s}: already present\n`);
        ctx.stdout.write(`${model.name} installed in ${result.dir}\n`);
        return 0;
      } finally {
        progress.done();
      }
    }
    throw new ClawboxError("CLI_USAGE", `unknown subcommand "${sub ?? ""}"`);
  },
};
