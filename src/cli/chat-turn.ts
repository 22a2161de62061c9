/**
 * One chat turn from the terminal: streams the reply to stdout and reports the outcome.
 * An aborted turn (Ctrl-C) keeps what streamed on screen and in the transcript (the
 * agent stores the partial reply with `stopReason: "aborted"`) and says so in words.
 */
import { textDeltaOf } from "../agent/index.ts";
import { CLI_SENDER } from "../sessions/index.ts";
import type { CliContext } from "./cli-context.ts";
import type { Runtime } from "./start-runtime.ts";

export type TurnOutcome = "ok" | "failed" | "aborted";

export async function chatTurn(
  ctx: CliContext,
  runtime: Runtime,
  sessionKey: string,
  text: string,
  json: boolean,
  signal: AbortSignal,
): Promise<TurnOutcome> {
  let streamed = "";
  const result = await runtime.agent.chat({
    sessionKey,
    text,
    channel: "cli",
    senderId: CLI_SENDER,
    chatType: "direct",
    signal,
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
  if (result.error?.code === "ABORTED" || (result.error && signal.aborted)) {
    if (!json) ctx.stderr.write(`${streamed ? "\n" : ""}[stopped; the partial reply is kept]\n`);
    return "aborted";
  }
  if (result.error) {
    if (!json) ctx.stderr.write(`\nclawbox chat: ${result.error.message} [${result.error.code}]\n`);
    return "failed";
  }
  ctx.stderr.write(`session: ${result.sessionKey}\n`);
  return "ok";
}
