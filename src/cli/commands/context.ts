/**
 * `clawbox context list|detail`: what the next turn of a session (or of a fresh session)
 * would send — bootstrap files with raw/injected chars, truncation and destination,
 * skills, tool schema tokens, history tokens, the budget plan and the prefix hash.
 * The window is the one a turn sees: for a local model without `contextSize`, the
 * trained context from the GGUF header, capped as the local provider caps it.
 */
import { existsSync } from "node:fs";

import { createContextEngine, formatContextReport } from "../../context/index.ts";
import { ClawboxError } from "../../errors/index.ts";
import { createMemory } from "../../memory/index.ts";
import {
  createProvider,
  localContextWindow,
  type ModelWindow,
  type Provider,
  primaryModel,
} from "../../providers/index.ts";
import { sessionKeyFor } from "../../server/index.ts";
import type { SessionRow } from "../../store/index.ts";
import { isOwner, reportToolDefinitions } from "../../tools/index.ts";
import { seedWorkspace } from "../../workspace/index.ts";
import type { Command } from "../command.ts";
import { EXIT } from "../exit-codes.ts";
import { parseWith } from "../parse-args.ts";

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

export const contextCommand: Command = {
  name: "context",
  args: { subcommands: { list: VIEW, detail: VIEW }, defaultSubcommand: "list" },
  usage: [
    "Usage: clawbox context <list|detail> [--session KEY] [--model-kind local|cloud] [--json]",
    "  list     per bootstrap file raw/injected chars, truncation, destination; totals",
    "  detail   also prompt sections, skills, tool schemas, pruning and repair",
    "  --session KEY   a session key or id (default: your main CLI session, as chat uses)",
    "  --model-kind    report for a local or cloud model (default: the primary model's kind)",
    "  --model PATH    measure for this GGUF file as the local model (as chat --model does)",
    "  --exact         load the local model and count with its tokenizer (else estimates)",
    "  --json          one JSON object",
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
    const modelPath = values.model;
    const model: ModelWindow = modelPath
      ? {
          providerId: "local",
          model: modelPath.split("/").pop() ?? modelPath,
          contextWindow: 0, // read from the file just below
          kind: "local",
        }
      : primaryModel(config);
    const entry = config.models.providers[model.providerId];
    const local = model.kind === "local" && entry?.kind === "local" ? entry : undefined;
    if (model.kind === "local") {
      model.contextWindow = await localContextWindow(
        { contextSize: local?.contextSize, path: modelPath ?? local?.path },
        (message) => ctx.logger().warn(message),
      );
    }
    const store = ctx.store();
    let session: SessionRow | undefined;
    if (!values.session) {
      // The session `clawbox chat` continues by default (fresh when it has none yet).
      session = store.sessions.byKey(
        sessionKeyFor(config.agent.id, "cli", undefined, config.agent.directSessionMode),
      );
    } else {
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
    let provider: Provider | undefined;
    try {
      if (!engine.report)
        throw new ClawboxError("INTERNAL", `context engine "${engine.id}" has no report`);
      // --exact: load the local model so counts come from its own tokenizer, as in a turn.
      const exactPath =
        values.exact && model.kind === "local" ? (modelPath ?? local?.path) : undefined;
      provider = exactPath
        ? createProvider(
            "local",
            {
              kind: "local",
              threads: 1,
              temperature: 0.7,
              maxTokens: 512,
              ...local,
              path: exactPath,
            },
            { logger: ctx.logger() },
          )
        : undefined;
      const report = await engine.report({
        ...(session ? { session } : {}),
        ...(provider ? { provider } : {}),
        // The tools the owner would be offered on the CLI, counted as a turn counts them.
        tools: reportToolDefinitions({
          store,
          config,
          extra: config.memory.enabled
            ? createMemory({ config, store, paths, logger: ctx.logger() }).tools
            : [],
          policy: {
            providerId: model.providerId,
            channel: "cli",
            chatType: "direct",
            senderId: "cli",
            isOwner: isOwner(config, "cli"),
          },
          modelKind: model.kind,
        }),
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
      return EXIT.ok;
    } finally {
      engine.dispose?.();
      await provider?.dispose?.();
    }
  },
};
