/**
 * The interactive `clawbox chat`. On a terminal readline runs in raw mode and receives
 * Ctrl-C itself (the process never sees SIGINT), so it is handled here: Ctrl-C during a
 * reply aborts that reply and returns to the prompt; Ctrl-C at an empty prompt quits;
 * Ctrl-C with typed text clears the line. `/help`, `/quit` and `/exit` are answered
 * here, the agent's own commands (/new, /status…) go to the agent, and any other
 * `/word` is refused with the list instead of being sent to the model.
 */
import { createInterface } from "node:readline";
import { SLASH_COMMAND_NAMES } from "../agent/index.ts";
import { chatTurn } from "./chat-turn.ts";
import type { CliContext } from "./cli-context.ts";
import { EXIT } from "./exit-codes.ts";
import type { Runtime } from "./start-runtime.ts";

const REPL_COMMANDS = ["help", "quit", "exit"];

export function replHelp(): string {
  return [
    "Commands:",
    "  /help              this list",
    "  /quit, /exit       leave (also Ctrl-D, or Ctrl-C at an empty prompt)",
    "  /new, /reset       start a fresh session under the same key",
    "  /status            session, model and token use",
    "  /compact [notes]   summarize older turns now",
    "  /context [detail]  what the model sees",
    "Ctrl-C while a reply runs stops it (the partial reply is kept).",
    "",
  ].join("\n");
}

/** What to do with a typed line: a REPL command, a refused command, or a message for the agent. */
export function classifyLine(
  text: string,
): { kind: "help" | "quit" | "message" } | { kind: "unknown"; name: string } {
  const match = /^\/([A-Za-z][\w-]*)(?:\s|$)/.exec(text);
  if (!match) return { kind: "message" };
  const name = (match[1] ?? "").toLowerCase();
  if (name === "help") return { kind: "help" };
  if (name === "quit" || name === "exit") return { kind: "quit" };
  if (SLASH_COMMAND_NAMES.includes(name)) return { kind: "message" };
  return { kind: "unknown", name };
}

export function unknownCommandText(name: string): string {
  const known = [...REPL_COMMANDS, ...SLASH_COMMAND_NAMES].map((c) => `/${c}`).join(", ");
  return `unknown command /${name}; known commands: ${known}\n`;
}

export async function runRepl(
  ctx: CliContext,
  runtime: Runtime,
  sessionKey: string,
  json: boolean,
): Promise<number> {
  const tty = process.stdin.isTTY ?? false;
  ctx.stderr.write(
    `clawbox chat — session ${sessionKey}; /help for commands, Ctrl-D or /quit to leave\n`,
  );
  const rl = createInterface({
    input: process.stdin,
    output: tty ? process.stdout : undefined,
    terminal: tty,
    prompt: "> ",
  });
  let running: AbortController | undefined;
  let quitting = false;
  const interrupt = () => {
    if (running) {
      running.abort();
      return;
    }
    if (tty && rl.line.length > 0) {
      // Like a shell: Ctrl-C with typed text drops the line.
      ctx.stdout.write("^C\n");
      rl.write(null, { ctrl: true, name: "u" });
      rl.prompt();
      return;
    }
    quitting = true;
    if (tty) ctx.stdout.write("\n");
    rl.close();
  };
  rl.on("SIGINT", interrupt);
  // Without a terminal (stdin piped) Ctrl-C arrives as a real signal.
  const onSignal = () => interrupt();
  if (!tty) process.on("SIGINT", onSignal);
  try {
    if (tty) rl.prompt();
    for await (const line of rl) {
      const text = line.trim();
      if (text) {
        const kind = classifyLine(text);
        if (kind.kind === "quit") break;
        if (kind.kind === "help") ctx.stdout.write(replHelp());
        else if (kind.kind === "unknown") ctx.stderr.write(unknownCommandText(kind.name));
        else {
          running = new AbortController();
          try {
            await chatTurn(ctx, runtime, sessionKey, text, json, running.signal);
          } finally {
            running = undefined;
          }
        }
      }
      if (quitting) break;
      if (tty) rl.prompt();
    }
    return EXIT.ok;
  } finally {
    process.off("SIGINT", onSignal);
    rl.close();
  }
}
