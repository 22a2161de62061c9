/**
 * `clawbox chat`: talk to the agent from the terminal. With -m it runs one turn and
 * exits; without, it is a REPL on stdin. Tokens stream to stdout as they arrive; the
 * session key is printed to stderr so a later call can continue with --session.
 */
import { createInterface } from "node:readline";
import { defaultLlamaThreads } from "../../config/index.ts";
import { ClawboxError } from "../../errors/index.ts";
import { sessionKeyFor, textDeltaOf } from "../../server/index.ts";
import type { CliContext } from "../cli-context.ts";
import type { Command } from "../command.ts";
import { parseCommandArgs } from "../parse-args.ts";
import { type Runtime, startRuntime } from "../start-runtime.ts";

async function turn(
  ctx: CliContext,
  runtime: Runtime,
  sessionKey: string,
  text: string,
  json: boolean,
): Promise<boolean> {
  let streamed = "";
  const controller = new AbortController();
  const onSigint = () => controller.abort();
  process.once("SIGINT", onSigint);
  try {
    const result = await runtime.agent.chat({
      sessionKey,
      text,
      channel: "cli",
      senderId: "cli",
      chatType: "direct",
      signal: controller.signal,
      onEvent: (event) => {
        const delta = textDeltaOf(event);
        if (delta && !json) {
          streamed += delta;
          ctx.stdout.write(delta);
        }
      },
    });
    if (json) {
      ctx.stdout.write(`${JSON.stringify(result)}\n`);
    } else if (!result.error) {
      // The cleaned reply may differ from the raw stream (thinking stripped); show it when nothing streamed.
      if (!streamed && result.reply && !result.silent) ctx.stdout.write(result.reply);
      ctx.stdout.write("\n");
    }
    if (result.error) {
      if (!json)
        ctx.stderr.write(`\nclawbox chat: ${result.error.message} [${result.error.code}]\n`);
      return false;
    }
    ctx.stderr.write(`session: ${result.sessionKey}\n`);
    return true;
  } finally {
    process.off("SIGINT", onSigint);
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

export const chatCommand: Command = {
  name: "chat",
  summary: "chat with the agent (one message with -m, else interactive)",
  usage: [
    "Usage: clawbox chat [-m TEXT] [--session KEY] [--model PATH] [--json]",
    "  -m, --message TEXT  send one message, print the reply, exit",
    "  --session KEY       session key or short name (default: your main CLI session)",
    "  --model PATH        use this GGUF file as the local model for this run",
    "  --json              print the result as JSON instead of streaming text",
  ].join("\n"),
  async run(ctx, args) {
    const { values, positionals } = parseCommandArgs(args, {
      message: { type: "string", short: "m" },
      session: { type: "string", short: "s" },
      model: { type: "string" },
      json: { type: "boolean" },
    });
    if (positionals.length > 0) {
      throw new ClawboxError(
        "CLI_USAGE",
        `unexpected argument "${positionals[0]}" (put the message after -m)`,
      );
    }
    applyModelOverride(ctx, values.model);
    const runtime = await startRuntime(ctx);
    const sessionKey = sessionKeyFor(runtime.config.agent.id, "cli", values.session);
    try {
      if (values.message !== undefined) {
        if (values.message.trim() === "")
          throw new ClawboxError("CLI_USAGE", "-m: the message is empty");
        return (await turn(ctx, runtime, sessionKey, values.message, values.json ?? false)) ? 0 : 1;
      }
      ctx.stderr.write(`clawbox chat — session ${sessionKey}; Ctrl-D to quit\n`);
      const rl = createInterface({ input: process.stdin, terminal: process.stdin.isTTY ?? false });
      if (process.stdin.isTTY) process.stdout.write("> ");
      for await (const line of rl) {
        const text = line.trim();
        if (text) await turn(ctx, runtime, sessionKey, text, values.json ?? false);
        if (process.stdin.isTTY) process.stdout.write("> ");
      }
      return 0;
    } finally {
      await runtime.close();
    }
  },
};
