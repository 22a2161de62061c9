/**
 * `clawbox models list|pull|use`: the model manifest (chat GGUFs and embedding models),
 * the recommendation for this board, resumable verified downloads (from the manifest's
 * URLs or a mirror), and switching the local model. A pulled chat model becomes the
 * local model when none was configured; `use` switches to one on purpose. Both write the
 * config file in place (comments kept), and a running `clawbox run` picks it up.
 */
import { resolve } from "node:path";
import { ClawboxError, isClawboxError } from "../../errors/index.ts";
import {
  activateIfUnset,
  activateModel,
  boardResources,
  createProgressPrinter,
  defaultManifestPath,
  findManifestModel,
  installedModelDir,
  loadManifest,
  type Manifest,
  type ManifestModel,
  pullCommandFor,
  pullModel,
  readInstalledChatModel,
  readInstalledModel,
  recommendChatModel,
  validateModelFile,
} from "../../models/index.ts";
import { formatBytes } from "../../system/index.ts";
import type { CliContext } from "../cli-context.ts";
import type { Command } from "../command.ts";
import { EXIT } from "../exit-codes.ts";
import { parseWith } from "../parse-args.ts";

const LIST = {
  options: { json: { type: "boolean" }, manifest: { type: "string" } },
  positionals: false,
} as const;
const PULL = {
  options: {
    "allow-unverified": { type: "boolean" },
    recommended: { type: "boolean" },
    manifest: { type: "string" },
    mirror: { type: "string" },
  },
  positionals: true,
} as const;
const USE = { options: { manifest: { type: "string" } }, positionals: true } as const;

function describe(m: ManifestModel): string {
  return m.kind === "chat"
    ? `chat ${m.quantization} ctx ${m.contextLength} min RAM ${m.minRamMb} MB ${m.license}`
    : `embedding ${m.dimension}d ${m.pooling}${m.quantized ? " int8" : ""}`;
}

/** The manifest a command reads, and how to name it in a hint. */
function manifestOf(
  ctx: CliContext,
  flag: string | undefined,
): { manifest: Manifest; source: string } {
  const path = flag ?? defaultManifestPath(ctx.env);
  const why = flag
    ? " (--manifest)"
    : ctx.env.CLAWBOX_MODEL_MANIFEST
      ? " (CLAWBOX_MODEL_MANIFEST)"
      : "";
  return { manifest: loadManifest(path), source: `${path}${why}` };
}

async function list(ctx: CliContext, args: string[]): Promise<number> {
  const { values } = parseWith(args, LIST);
  const { manifest } = manifestOf(ctx, values.manifest);
  const modelsDir = ctx.paths.modelsDir;
  const recommendation = recommendChatModel(manifest, boardResources(modelsDir));
  const rows = manifest.models.map((m) => {
    const dir = installedModelDir(modelsDir, m.name);
    return {
      name: m.name,
      kind: m.kind,
      description: describe(m),
      size: m.files
        .map((f) => (f.size !== undefined ? formatBytes(f.size) : (f.approxSize ?? "?")))
        .join(" + "),
      verified: m.files.every((f) => f.sha256 !== null),
      installed:
        m.kind === "chat"
          ? readInstalledChatModel(dir) !== undefined
          : readInstalledModel(dir) !== undefined,
      recommended: recommendation.model?.name === m.name,
      pull: pullCommandFor(m),
    };
  });
  if (values.json) {
    ctx.stdout.write(`${JSON.stringify(rows, null, 2)}\n`);
    return EXIT.ok;
  }
  for (const r of rows) {
    ctx.stdout.write(
      `${r.installed ? "*" : " "} ${r.name}  ${r.description}  ${r.size}${r.verified ? "" : "  (sha256 unverified: pull with --allow-unverified)"}${r.recommended ? "  <- recommended" : ""}\n`,
    );
  }
  ctx.stdout.write(
    `\nrecommended: ${recommendation.reason}${recommendation.command ? `\n  ${recommendation.command}` : ""}\n`,
  );
  return EXIT.ok;
}

async function pull(ctx: CliContext, args: string[]): Promise<number> {
  const { values, positionals } = parseWith(args, PULL);
  const { manifest, source } = manifestOf(ctx, values.manifest);
  const modelsDir = ctx.paths.modelsDir;
  let name = positionals[0];
  if (values.recommended) {
    const recommendation = recommendChatModel(manifest, boardResources(modelsDir));
    if (!recommendation.model) {
      throw new ClawboxError("MODEL_NOT_FOUND", `no model to recommend: ${recommendation.reason}`);
    }
    name = recommendation.model.name;
    ctx.stdout.write(`recommended: ${recommendation.reason}\n`);
  }
  if (!name) throw new ClawboxError("CLI_USAGE", "pull needs a model NAME (or --recommended)");
  const model = findManifestModel(manifest, name);
  const mirror = values.mirror ?? ctx.config().config.models.mirror;
  if (mirror !== undefined && !URL.canParse(mirror)) {
    throw new ClawboxError("CLI_USAGE", `--mirror ${mirror}: not a URL`, {
      hint: "e.g. --mirror http://192.168.1.20:8000/",
    });
  }
  const progress = createProgressPrinter((t) => ctx.stderr.write(t), Boolean(process.stderr.isTTY));
  try {
    const result = await pullModel(model, {
      modelsDir,
      allowUnverified: values["allow-unverified"] ?? false,
      manifestPath: source,
      ...(mirror ? { mirror } : {}),
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
        `${f.path}: ${formatBytes(f.bytes)}, sha256 ${f.sha256} ${f.verified ? "(verified)" : "(NOT verified: no sha256 in the manifest)"}${f.resumedFrom > 0 ? `, resumed at ${formatBytes(f.resumedFrom)}` : ""}\n`,
      );
    }
    for (const s of result.skipped) ctx.stdout.write(`${s}: already present\n`);
    ctx.stdout.write(`${model.name} installed in ${result.dir}\n`);
    if (model.kind === "chat") {
      const installed = readInstalledChatModel(result.dir);
      if (installed) {
        const activation = await activateIfUnset(
          ctx.config().config.models,
          ctx.paths.configFile,
          installed.path,
        );
        ctx.stdout.write(`${activation.message}\n`);
      }
    }
    return EXIT.ok;
  } finally {
    progress.done();
  }
}

/** The GGUF file `NAME|PATH` names: an installed model's file, or a path. */
function resolveUseTarget(ctx: CliContext, target: string, manifest: Manifest): string {
  const installed = /^[a-z0-9][a-z0-9._-]*$/.test(target)
    ? readInstalledChatModel(installedModelDir(ctx.paths.modelsDir, target))
    : undefined;
  if (installed) return installed.path;
  const known = manifest.models.find((m) => m.name === target);
  if (known) {
    throw new ClawboxError("NOT_FOUND", `${target} is not installed`, {
      hint: `run "${pullCommandFor(known)}" first`,
    });
  }
  if (!target.includes("/") && !target.toLowerCase().endsWith(".gguf")) {
    throw new ClawboxError("NOT_FOUND", `no installed chat model named "${target}"`, {
      hint: "clawbox models list shows them (marked *); or give the path of a GGUF file",
    });
  }
  return resolve(target);
}

async function use(ctx: CliContext, args: string[]): Promise<number> {
  const { values, positionals } = parseWith(args, USE);
  const target = positionals[0];
  if (!target)
    throw new ClawboxError("CLI_USAGE", "use needs an installed model NAME or a GGUF PATH");
  const { manifest } = manifestOf(ctx, values.manifest);
  const path = resolveUseTarget(ctx, target, manifest);
  try {
    await validateModelFile(path);
  } catch (error) {
    if (isClawboxError(error, "MODEL_NOT_FOUND")) {
      throw new ClawboxError("NOT_FOUND", `${path}: model file not found`, {
        hint: "check the path, or name an installed model (clawbox models list)",
      });
    }
    throw error;
  }
  const activation = await activateModel(ctx.config().config.models, ctx.paths.configFile, path);
  ctx.stdout.write(
    `${activation.message}\n(a running clawbox run switches within a few seconds; new chats use it)\n`,
  );
  return EXIT.ok;
}

export const modelsCommand: Command = {
  name: "models",
  args: { subcommands: { list: LIST, pull: PULL, use: USE } },
  usage: [
    "Usage: clawbox models <list|pull|use> [options]",
    "  list [--json]                          manifest models, which are installed (*), and the one recommended for this board",
    "  pull NAME [--allow-unverified]         download into <home>/models/NAME (resumes, verifies sha256);",
    "                                         a chat model becomes the local model when none is configured",
    "  pull --recommended                     the chat model recommended for this board's RAM and free disk",
    "  pull ... --mirror URL                  fetch <URL>/NAME/FILE instead of the manifest's URLs (a LAN server;",
    "                                         default models.mirror), with the same size and sha256 checks",
    "  use NAME|PATH                          make an installed model (or a GGUF file) the local, primary model;",
    "                                         writes clawbox.json in place, a running service picks it up",
    "  --manifest FILE                        use another manifest (default models/manifest.json or $CLAWBOX_MODEL_MANIFEST)",
  ].join("\n"),
  async run(ctx, args) {
    const [sub, ...rest] = args;
    if (sub === "list") return list(ctx, rest);
    if (sub === "pull") return pull(ctx, rest);
    return use(ctx, rest);
  },
};
