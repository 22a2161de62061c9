/**
 * `clawbox chat`: talk to the agent from the terminal. With -m it runs one turn and
 * exits; without, it is a REPL on stdin. Tokens stream to stdout as they arrive; the
 * session key is printed to stderr so a later call can continue with --session.
 */
import { defaultLlamaThreads } from "../../config/index.ts";
import { ClawboxError, isClawboxError } from "../../errors/index.ts";
import { validateModelFile } from "../../models/index.ts";
import { CLI_SENDER } from "../../sessions/index.ts";
import { classifyLine, replHelp, runRepl, unknownCommandText } from "../chat-repl.ts";
import { chatTurn } from "../chat-turn.ts";
import type { CliContext } from "../cli-context.ts";
import type { Command } from "../command.ts";
import { EXIT } from "../exit-codes.ts";
import { sessionKeyArg } from "../find-session.ts";
import { parseWith } from "../parse-args.ts";
import { type Runtime, startRuntime } from "../start-runtime.ts";

/**
 * One turn with -m. The first Ctrl-C (SIGINT) aborts the reply, which is printed and
 * stored as far as it got; a second one leaves at once. The handler stays registered
 * for the whole turn: a `once` handler is gone when a dependency's signal-exit hook
 * counts listeners, and that hook then re-raises SIGINT and kills the process.
 */
async function oneShot(
  ctx: CliContext,
  runtime: Runtime,
  sessionKey: string,
  text: string,
  json: boolean,
): Promise<number> {
  const line = classifyLine(text.trim());
  if (line.kind === "help") {
    ctx.stdout.write(replHelp());
    return EXIT.ok;
  }
  if (line.kind === "unknown") {
    ctx.stderr.write(unknownCommandText(line.name));
    return EXIT.usage;
  }
  if (line.kind === "quit") return EXIT.ok;
  const controller = new AbortController();
  const onSigint = () => {
    if (controller.signal.aborted) process.exit(EXIT.interrupted);
    controller.abort();
  };
  process.on("SIGINT", onSigint);
  try {
    const outcome = await chatTurn(ctx, runtime, sessionKey, text, json, controller.signal);
    return outcome === "ok" ? EXIT.ok : outcome === "aborted" ? EXIT.interrupted : EXIT.failed;
  } finally {
    process.off("SIGINT", onSigint);
  }
}

/** `--model PATH` names a GGUF file that exists and loads: else say so before any turn. */
async function checkModelFlag(path: string): Promise<void> {
  try {
    await validateModelFile(path);
  } catch (error) {
    if (!isClawboxError(error, "MODEL_NOT_FOUND", "MODEL_INVALID")) throw error;
    const reason = error.message.startsWith(`${path}: `)
      ? error.message.slice(path.length + 2).replace(/ \(.*\)$/, "")
      : error.message;
    throw new ClawboxError(error.code, `--model ${path}: ${reason}`, {
      hint: "name a GGUF chat model file; clawbox models list shows the installed ones",
    });
  }
}

function applyModelOverride(ctx: CliContext, modelPath: string | undefined): void {
  if (!modelPath) return;
  const { config } = ctx.config();
  const local = config.models.providers.local;
  config.models.providers.local =
    local?.kind === "local"
      ? { ...local, path: modelPath }
      : {
          kind: "local",
          path: modelPath,
          threads: defaultLlamaThreads(),
          temperature: 0.7,
          maxTokens: 512,
        };
  config.models.primary = "local";
}

const ARGS = {
  options: {
    message: { type: "string", short: "m" },
    session: { type: "string", short: "s" },
    model: { type: "string" },
    json: { type: "boolean" },
  },
  positionals: true,
} as const;

export const chatCommand: Command = {
  name: "chat",
  args: ARGS,
  usage: [
    "Usage: clawbox chat [-m TEXT] [--session NAME] [--model PATH] [--json]",
    "  -m, --message TEXT  send one message, print the reply, exit",
    "  --session NAME      a short name (kitchen) or a session key (default: your main CLI session)",
    "  --model PATH        use this GGUF file as the local model for this run",
    "  --json              print the result as JSON instead of streaming text",
  ].join("\n"),
  async run(ctx, args) {
    const { values, positionals } = parseWith(args, ARGS);
    if (positionals.length > 0) {
      throw new ClawboxError(
        "CLI_USAGE",
        `unexpected argument "${positionals[0]}" (put the message after -m)`,
      );
    }
    if (values.message?.trim() === "")
      throw new ClawboxError("CLI_USAGE", "-m: the message is empty");
    if (values.model !== undefined) await checkModelFlag(values.model);
    applyModelOverride(ctx, values.model);
    const sessions = ctx.sessions();
    const sessionKey =
      values.session !== undefined
        ? sessionKeyArg(ctx, "--session", values.session)
        : sessions.defaultSession("cli", sessions.isOwner(CLI_SENDER));
    const runtime = await startRuntime(ctx);
    try {
      if (values.message !== undefined) {
        return await oneShot(ctx, runtime, sessionKey, values.message, values.json ?? false);
      }
      return await runRepl(ctx, runtime, sessionKey, values.json ?? false);
    } finally {
      await runtime.close();
    }
  },
};
