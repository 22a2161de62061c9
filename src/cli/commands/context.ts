import { existsSync } from "node:fs";
/**
 * `clawbox context list|detail`: what the next turn of a session (or of a fresh session)
 * would send — bootstrap files with raw/injected chars, truncation and destination,
 * skills, tool schema tokens, history tokens, the budget plan and the prefix hash.
 */

import type { ClawboxConfig } from "../../config/index.ts";
import { createContextEngine, formatContextReport, type ModelKind } from "../../context/index.ts";
import { ClawboxError } from "../../errors/index.ts";
import type { SessionRow } from "../../store/index.ts";
import { seedWorkspace } from "../../workspace/index.ts";
import type { Command } from "../command.ts";
import { parseCommandArgs } from "../parse-args.ts";

/** The primary model as the report sees it, without loading it. */
export function primaryModel(config: ClawboxConfig): {
  providerId: string;
  model: string;
  contextWindow: number;
  kind: ModelKind;
} {
  const id = config.models.primary;
  const provider = config.models.providers[id];
  if (!provider) {
    throw new ClawboxError("CONFIG_INVALID", `models.primary: "${id}" is not in models.providers`);
  }
  if (provider.kind === "local") {
    const name = provider.path ? (provider.path.split("/").pop() ?? provider.path) : "local";
    return {
      providerId: id,
      model: name,
      contextWindow: provider.contextSize ?? 8192,
      kind: "local",
    };
  }
  return {
    providerId: id,
    model: provider.model,
    contextWindow: provider.contextWindow,
    kind: "cloud",
  };
}

export const contextCommand: Command = {
  name: "context",
  summary: "show what the model sees: bootstrap files, skills, tools, history, budget",
  usage: [
    "Usage: clawbox context <list|detail> [--session KEY] [--model-kind local|cloud] [--json]",
    "  list     per bootstrap file raw/injected chars, truncation, destination; totals",
    "  detail   also prompt sections, skills, tool schemas, pruning and repair",
    "  --session KEY   a session key or id (default: a fresh session)",
    "  --model-kind    report for a local or cloud model (default: the primary model's kind)",
    "  --json          one JSON object",
    "A workspace folder that does not exist yet is first seeded with the defaults, as run and chat do.",
  ].join("\n"),
  async run(ctx, args) {
    const { values, positionals } = parseCommandArgs(args, {
      session: { type: "string" },
      "model-kind": { type: "string" },
      json: { type: "boolean" },
    });
    const view = positionals[0] ?? "list";
    if (view !== "list" && view !== "detail")
      throw new ClawboxError("CLI_USAGE", `unknown subcommand "${view}"`);
    const kindArg = values["model-kind"];
    if (kindArg !== undefined && kindArg !== "local" && kindArg !== "cloud") {
      throw new ClawboxError("CLI_USAGE", `--model-kind must be local or cloud, not "${kindArg}"`);
    }
    const { config } = ctx.config();
    const model = primaryModel(config);
    const store = ctx.store();
    let session: SessionRow | undefined;
    if (values.session) {
      session = store.sessions.find(values.session);
      if (!session) {
        throw new ClawboxError("SESSION_NOT_FOUND", `no session with id or key ${values.session}`, {
          hint: 'list sessions with "clawbox sessions list"',
        });
      }
    }
    const paths = ctx.resolvedPaths();
    if (!existsSync(paths.workspace)) seedWorkspace(paths.workspace);
    const engine = createContextEngine({
      config,
      store,
      paths,
      logger: ctx.logger(),
      watch: false,
    });
    try {
      if (!engine.report)
        throw new ClawboxError("INTERNAL", `context engine "${engine.id}" has no report`);
      const report = await engine.report({
        ...(session ? { session } : {}),
        modelKind: kindArg ?? model.kind,
        model: {
          providerId: model.providerId,
          model: model.model,
          contextWindow: model.contextWindow,
        },
      });
      if (values.json) {
        ctx.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
      } else {
        ctx.stdout.write(formatContextReport(report, view));
      }
      return 0;
    } finally {
      engine.dispose?.();
    }
  },
};
