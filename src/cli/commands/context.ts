/**
 * `clawbox context list|detail`: what the next turn of a session (or of a fresh session)
 * would send — bootstrap files with raw/injected chars, truncation and destination,
 * skills, tool schema tokens, history tokens, the budget plan and the prefix hash. It
 * must say what `/context list` in a chat says for the same session and model: the same
 * tools (base, memory, reminders, TOOLS.md devices; MCP only in the running service), the
 * same window (a local model's as its GGUF header gives it, capped as a turn caps it) and
 * the same counts (a local model's own tokenizer, loaded without weights; `--exact` loads
 * the whole model as a turn does).
 */
import { existsSync } from "node:fs";
import type { ClawboxConfig } from "../../config/index.ts";
import { createContextEngine, formatContextReport } from "../../context/index.ts";
import { ClawboxError, errorMessage } from "../../errors/index.ts";
import { createMemory } from "../../memory/index.ts";
import {
  createProvider,
  type LocalTokenizer,
  localContextWindow,
  localModelName,
  type ModelWindow,
  openLocalTokenizer,
  type Provider,
  primaryModel,
} from "../../providers/index.ts";
import { createScheduler } from "../../scheduler/index.ts";
import { CLI_SENDER, isOwnerSender } from "../../sessions/index.ts";
import type { SessionRow } from "../../store/index.ts";
import { reportToolDefinitions } from "../../tools/index.ts";
import { seedWorkspace } from "../../workspace/index.ts";
import type { CliContext } from "../cli-context.ts";
import type { Command } from "../command.ts";
import { EXIT } from "../exit-codes.ts";
import { requireSession } from "../find-session.ts";
import { parseWith } from "../parse-args.ts";
import { runtimeTools } from "../runtime-tools.ts";

const VIEW = {
  options: {
    session: { type: "string" },
    "model-kind": { type: "string" },
    model: { type: "string" },
    exact: { type: "boolean" },
    json: { type: "boolean" },
  },
  positionals: false,
} as const;

/** A cloud provider's window when none is configured (the schema's default). */
const DEFAULT_CLOUD_WINDOW = 128000;

/**
 * The model to report for: `--model PATH`, else the primary model, else (with
 * `--model-kind` naming the other kind) the first configured model of that kind in the
 * fallback chain or the providers; with none configured, a model of that kind with
 * default settings, labelled as not configured.
 */
function chooseModel(
  config: ClawboxConfig,
  modelPath: string | undefined,
  kind: "local" | "cloud" | undefined,
): ModelWindow & { path?: string | undefined } {
  if (modelPath) {
    return {
      providerId: "local",
      model: localModelName(modelPath),
      contextWindow: 0,
      kind: "local",
      path: modelPath,
    };
  }
  const primary = primaryModel(config.models);
  if (!kind || primary.kind === kind) return withPath(config, primary);
  const ids = [...config.models.fallbacks, ...Object.keys(config.models.providers)];
  for (const id of ids) {
    const entry = config.models.providers[id];
    if (!entry || (entry.kind === "local") !== (kind === "local")) continue;
    return withPath(config, primaryModel({ ...config.models, primary: id }));
  }
  return kind === "cloud"
    ? {
        providerId: "cloud",
        model: "(none configured)",
        contextWindow: DEFAULT_CLOUD_WINDOW,
        kind,
      }
    : { providerId: "local", model: "(none configured)", contextWindow: 0, kind };
}

function withPath(config: ClawboxConfig, model: ModelWindow) {
  const entry = config.models.providers[model.providerId];
  return { ...model, path: entry?.kind === "local" ? entry.path : undefined };
}

/** `--session NAME` as chat takes it; default: the session `clawbox chat` continues (fresh when it has none yet). */
function contextSession(ctx: CliContext, name: string | undefined): SessionRow | undefined {
  if (name !== undefined) return requireSession(ctx, name);
  const sessions = ctx.sessions();
  return ctx.store().sessions.byKey(sessions.defaultSession("cli", sessions.isOwner(CLI_SENDER)));
}

export const contextCommand: Command = {
  name: "context",
  args: { subcommands: { list: VIEW, detail: VIEW }, defaultSubcommand: "list" },
  usage: [
    "Usage: clawbox context <list|detail> [--session NAME] [--model-kind local|cloud] [--model PATH] [--exact] [--json]",
    "  list     per bootstrap file raw/injected chars, truncation, destination; totals",
    "  detail   also prompt sections, skills, tool schemas, pruning and repair",
    "  --session NAME  a short name, key or id, as chat takes it (default: your main CLI session)",
    "  --model-kind    report for the configured local or cloud model (default: the primary model)",
    "  --model PATH    measure for this GGUF file as the local model (as chat --model does)",
    "  --exact         load the whole local model, as a turn does (default: its tokenizer only;",
    "                  the counts are the same)",
    "  --json          one JSON object",
    "Counts the tools a CLI turn offers the owner; MCP servers' tools only a running service knows.",
    "A workspace folder that does not exist yet is first seeded with the defaults, as run and chat do.",
  ].join("\n"),
  async run(ctx, args) {
    const view = args[0] === "detail" ? "detail" : "list";
    const { values } = parseWith(args[0] === view ? args.slice(1) : args, VIEW);
    const kindArg = values["model-kind"];
    if (kindArg !== undefined && kindArg !== "local" && kindArg !== "cloud") {
      throw new ClawboxError("CLI_USAGE", `--model-kind must be local or cloud, not "${kindArg}"`);
    }
    const { config } = ctx.config();
    const model = chooseModel(config, values.model, kindArg);
    const entry = config.models.providers[model.providerId];
    const local = model.kind === "local" && entry?.kind === "local" ? entry : undefined;
    if (model.kind === "local") {
      model.contextWindow = await localContextWindow(
        { contextSize: local?.contextSize, path: model.path },
        (message) => ctx.logger().warn(message),
      );
    }
    const session: SessionRow | undefined = contextSession(ctx, values.session);
    const store = ctx.store();
    const paths = ctx.resolvedPaths();
    if (!existsSync(paths.workspace)) seedWorkspace(paths.workspace);
    const engine = createContextEngine({
      config,
      store,
      paths,
      logger: ctx.logger(),
      watch: false,
    });
    const memory = config.memory.enabled
      ? createMemory({ config, store, paths, logger: ctx.logger() })
      : undefined;
    const scheduler = createScheduler({
      config,
      store,
      workspace: paths.workspace,
      logger: ctx.logger(),
    });
    const extras = runtimeTools({ config, paths, memory, scheduler });
    let provider: Provider | undefined;
    let tokenizer: LocalTokenizer | undefined;
    try {
      if (!engine.report)
        throw new ClawboxError("INTERNAL", `context engine "${engine.id}" has no report`);
      const threads = local?.threads ?? 1;
      if (model.kind === "local" && model.path && existsSync(model.path)) {
        if (values.exact) {
          provider = createProvider(
            "local",
            {
              kind: "local",
              temperature: 0.7,
              maxTokens: 512,
              ...local,
              threads,
              path: model.path,
            },
            { logger: ctx.logger() },
          );
        } else {
          tokenizer = await openLocalTokenizer(model.path, threads, ctx.logger()).catch(
            (error: unknown) => {
              ctx.logger().warn("cannot load the model's tokenizer: the counts are estimates", {
                error: errorMessage(error),
              });
              return undefined;
            },
          );
        }
      }
      const report = await engine.report({
        ...(session ? { session } : {}),
        ...(provider ? { provider } : {}),
        ...(tokenizer ? { tokens: tokenizer } : {}),
        // The tools the owner would be offered on the CLI, counted as a turn counts them.
        tools: reportToolDefinitions({
          store,
          config,
          extra: [...extras.tools, ...extras.dynamicTools()],
          policy: {
            providerId: model.providerId,
            channel: "cli",
            chatType: "direct",
            senderId: CLI_SENDER,
            isOwner: isOwnerSender(config.agent.owners, CLI_SENDER),
          },
          modelKind: model.kind,
        }),
        modelKind: model.kind,
        model: {
          providerId: model.providerId,
          model: model.model,
          contextWindow: model.contextWindow,
        },
      });
      ctx.stdout.write(
        values.json ? `${JSON.stringify(report, null, 2)}\n` : formatContextReport(report, view),
      );
      return EXIT.ok;
    } finally {
      engine.dispose?.();
      await scheduler.close();
      await memory?.close();
      await tokenizer?.dispose();
      await provider?.dispose?.();
    }
  },
};
