/**
 * `clawbox models list|pull`: the model manifest (chat GGUFs and embedding models), the
 * recommendation for this board, and resumable, verified downloads. A pulled chat model
 * becomes the local model when none was configured (written to the config file).
 */
import { ClawboxError } from "../../errors/index.ts";
import {
  activateIfUnset,
  boardResources,
  createProgressPrinter,
  findManifestModel,
  installedModelDir,
  loadManifest,
  type ManifestModel,
  pullModel,
  readInstalledChatModel,
  readInstalledModel,
  recommendChatModel,
} from "../../models/index.ts";
import type { Command } from "../command.ts";
import { parseCommandArgs } from "../parse-args.ts";

function describe(m: ManifestModel): string {
  return m.kind === "chat"
    ? `chat ${m.quantization} ctx ${m.contextLength} min RAM ${m.minRamMb} MB ${m.license}`
    : `embedding ${m.dimension}d ${m.pooling}${m.quantized ? " int8" : ""}`;
}

export const modelsCommand: Command = {
  name: "models",
  summary: "list or pull models from the manifest (chat and embedding models)",
  usage: [
    "Usage: clawbox models <list|pull> [options]",
    "  list [--json]                          manifest models, which are installed, and the one recommended for this board",
    "  pull NAME [--allow-unverified]         download into <home>/models/NAME (resumes, verifies sha256);",
    "  pull --recommended                     the chat model recommended for this board's RAM and free disk",
    "                                         a chat model becomes the local model when none is configured",
    "  --manifest FILE                        use another manifest (default models/manifest.json or $CLAWBOX_MODEL_MANIFEST)",
  ].join("\n"),
  async run(ctx, args) {
    const [sub, ...rest] = args;
    const { values, positionals } = parseCommandArgs(rest, {
      json: { type: "boolean" },
      "allow-unverified": { type: "boolean" },
      recommended: { type: "boolean" },
      manifest: { type: "string" },
    });
    const manifest = values.manifest ? loadManifest(values.manifest) : loadManifest();
    const modelsDir = ctx.paths.modelsDir;
    if (sub === "list") {
      const recommendation = recommendChatModel(manifest, boardResources(modelsDir));
      const rows = manifest.models.map((m) => {
        const dir = installedModelDir(modelsDir, m.name);
        return {
          name: m.name,
          kind: m.kind,
          description: describe(m),
          size: m.files.map((f) => f.approxSize ?? (f.size ? `${f.size} B` : "?")).join(" + "),
          verified: m.files.every((f) => f.sha256 !== null),
          installed:
            m.kind === "chat"
              ? readInstalledChatModel(dir) !== undefined
              : readInstalledModel(dir) !== undefined,
          recommended: recommendation.model?.name === m.name,
        };
      });
      if (values.json) {
        ctx.stdout.write(`${JSON.stringify(rows, null, 2)}\n`);
        return 0;
      }
      for (const r of rows) {
        ctx.stdout.write(
          `${r.installed ? "*" : " "} ${r.name}  ${r.description}  ${r.size}${r.verified ? "" : "  (sha256 unverified)"}${r.recommended ? "  <- recommended" : ""}\n`,
        );
      }
      ctx.stdout.write(
        `\nrecommended: ${recommendation.reason}${recommendation.command ? `\n  ${recommendation.command}` : ""}\n`,
      );
      return 0;
    }
    if (sub === "pull") {
      let name = positionals[0];
      if (values.recommended) {
        const recommendation = recommendChatModel(manifest, boardResources(modelsDir));
        if (!recommendation.model) {
          throw new ClawboxError(
            "MODEL_NOT_FOUND",
            `no model to recommend: ${recommendation.reason}`,
          );
        }
        name = recommendation.model.name;
        ctx.stdout.write(`recommended: ${recommendation.reason}\n`);
      }
      if (!name) throw new ClawboxError("CLI_USAGE", "pull needs a model NAME (or --recommended)");
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
          retry: {
            onRetry: ({ error, clock, inMs }) => {
              progress.done();
              const wait = `retrying in ${Math.round(inMs / 1000)} s`;
              ctx.stderr.write(
                clock ? `${clock}; ${wait} (${error.message})\n` : `${error.message}; ${wait}\n`,
              );
            },
          },
        });
        progress.done();
        for (const f of result.files) {
          ctx.stdout.write(
            `${f.path}: ${f.bytes} bytes, sha256 ${f.sha256} ${f.verified ? "(verified)" : "(NOT verified: no sha256 in the manifest)"}${f.resumedFrom > 0 ? `, resumed at ${f.resumedFrom}` : ""}\n`,
          );
        }
        for (const s of result.skipped) ctx.stdout.write(`${s}: already present\n`);
        ctx.stdout.write(`${model.name} installed in ${result.dir}\n`);
        if (model.kind === "chat") {
          const installed = readInstalledChatModel(result.dir);
          if (installed) {
            const activation = await activateIfUnset(
              ctx.config().config,
              ctx.paths.configFile,
              installed.path,
            );
            ctx.stdout.write(`${activation.message}\n`);
          }
        }
        return 0;
      } finally {
        progress.done();
      }
    }
    throw new ClawboxError("CLI_USAGE", `unknown subcommand "${sub ?? ""}"`);
  },
};
