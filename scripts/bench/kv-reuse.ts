/**
 * kv-reuse: how much of each prompt llama.cpp re-evaluates across a 30-turn session
 * with tool calls and tool results on stories260K. For every request it divides tokens
 * evaluated by tokens newly appended since the previous request (the reply the model
 * produced is not "new"); with KV reuse that ratio should stay near 1 (target <= 1.1),
 * without it the whole prompt is evaluated each time. Also times turn 1 against turn 30.
 *
 *   npm run bench -- kv-reuse [--json] [--turns N] [--model PATH]
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import type { AssistantMessage, Message } from "../../src/messages/index.ts";
import { LocalProvider } from "../../src/providers/index.ts";

const args = process.argv.slice(2);
const json = args.includes("--json");
const turns = Number(argAfter("--turns") ?? 30);
const modelPath =
  argAfter("--model") ?? join(import.meta.dirname, "../../../shared/models/stories260K.gguf");

function argAfter(flag: string): string | undefined {
  const index = args.indexOf(flag);
  return index >= 0 ? args[index + 1] : undefined;
}

const tools = [
  {
    name: "read_sensor",
    description: "Reads a home sensor and returns its value",
    parameters: {
      type: "object",
      properties: { room: { type: "string", maxLength: 12 } },
      required: ["room"],
    },
  },
];
const systemPrompt =
  "You are a helpful home assistant on a small box. Answer briefly. Use tools when you need sensor data.\n";

interface RequestFigures {
  turn: number;
  evaluated: number;
  appended: number;
  reused: number;
  ms: number;
}

async function runSession(
  kvReuse: boolean,
): Promise<{ requests: RequestFigures[]; turnMs: number[] }> {
  const provider = new LocalProvider("bench", {
    kind: "local",
    path: modelPath,
    threads: 1,
    temperature: 0,
    maxTokens: 88,
    contextSize: 8192,
    kvReuse,
    maxArgChars: 12,
  });
  const messages: Message[] = [];
  const requests: RequestFigures[] = [];
  const turnMs: number[] = [];
  let previousTotal = 0;
  // A tool call needs ~80 tokens of JSON on this vocabulary; text replies are kept short.
  const ask = async (turn: number, toolChoice: "auto" | "required"): Promise<AssistantMessage> => {
    const maxTokens = toolChoice === "required" ? 88 : 32;
    const started = performance.now();
    let final: AssistantMessage | undefined;
    for await (const event of provider.stream({
      systemPrompt,
      cacheBoundary: systemPrompt.length,
      messages,
      tools,
      toolChoice,
      maxTokens,
      sessionId: "bench",
    })) {
      if (event.type === "done") final = event.message;
      if (event.type === "error") throw event.error;
    }
    if (!final) throw new Error("no reply");
    const prompt = final.usage.input + final.usage.cacheRead;
    requests.push({
      turn,
      evaluated: final.usage.input,
      reused: final.usage.cacheRead,
      appended: prompt - previousTotal,
      ms: performance.now() - started,
    });
    previousTotal = prompt + final.usage.output;
    messages.push(final);
    return final;
  };
  for (let turn = 1; turn <= turns; turn += 1) {
    const started = performance.now();
    messages.push({
      role: "user",
      content: `Turn ${turn}: how warm is the kitchen now?`,
      timestamp: Date.now(),
    });
    let reply = await ask(turn, turn % 3 === 0 ? "required" : "auto");
    for (let round = 0; round < 1; round += 1) {
      const call = reply.content.find((block) => block.type === "toolCall");
      if (call?.type !== "toolCall") break;
      messages.push({
        role: "toolResult",
        toolCallId: call.id,
        toolName: call.name,
        content: [
          { type: "text", text: `kitchen: ${18 + (turn % 5)}.5 C, humidity ${40 + turn}%` },
        ],
        isError: false,
        timestamp: Date.now(),
      });
      reply = await ask(turn, "auto");
    }
    turnMs.push(performance.now() - started);
    if (!json)
      process.stderr.write(`\r${kvReuse ? "reuse" : "no reuse"}: turn ${turn}/${turns}   `);
  }
  await provider.dispose();
  return { requests, turnMs };
}

function ratio(requests: RequestFigures[]): number {
  const evaluated = requests.reduce((sum, r) => sum + r.evaluated, 0);
  const appended = requests.reduce((sum, r) => sum + r.appended, 0);
  return evaluated / appended;
}

if (!existsSync(modelPath)) {
  console.error(`kv-reuse: model not found: ${modelPath}`);
  process.exit(2);
}
const withReuse = await runSession(true);
const without = await runSession(false);
// The first request of a session has nothing to reuse; ratios count the steady state too.
const result = {
  model: modelPath.split("/").at(-1),
  turns,
  requests: withReuse.requests.length,
  evalRatio: round(ratio(withReuse.requests)),
  evalRatioNoReuse: round(ratio(without.requests)),
  evalRatioAfterFirst: round(ratio(withReuse.requests.slice(1))),
  evalRatioNoReuseAfterFirst: round(ratio(without.requests.slice(1))),
  worstRequestRatio: round(
    Math.max(...withReuse.requests.slice(1).map((r) => r.evaluated / r.appended)),
  ),
  turn1Ms: round(withReuse.turnMs[0] ?? 0),
  turnLastMs: round(withReuse.turnMs.at(-1) ?? 0),
  turn1MsNoReuse: round(without.turnMs[0] ?? 0),
  turnLastMsNoReuse: round(without.turnMs.at(-1) ?? 0),
  promptTokensAtEnd:
    (withReuse.requests.at(-1)?.evaluated ?? 0) + (withReuse.requests.at(-1)?.reused ?? 0),
};

function round(value: number): number {
  return Math.round(value * 1000) / 1000;
}

if (json) {
  console.log(JSON.stringify(result));
} else {
  console.log(
    `kv-reuse on ${result.model}: ${turns} turns, ${result.requests} requests (tool calls + results included)`,
  );
  console.log("turn  evaluated/appended (reuse)   evaluated/appended (no reuse)");
  const byTurn = (requests: RequestFigures[], turn: number) =>
    requests.filter((r) => r.turn === turn);
  for (let turn = 1; turn <= turns; turn += 1) {
    const a = byTurn(withReuse.requests, turn);
    const b = byTurn(without.requests, turn);
    const fmt = (rs: RequestFigures[]) => rs.map((r) => `${r.evaluated}/${r.appended}`).join(" ");
    console.log(`${String(turn).padStart(4)}  ${fmt(a).padEnd(28)} ${fmt(b)}`);
  }
  console.log(
    `overall ratio: ${result.evalRatio} with reuse, ${result.evalRatioNoReuse} without (target <= 1.1)`,
  );
  console.log(
    `after the first request: ${result.evalRatioAfterFirst} with reuse, ${result.evalRatioNoReuseAfterFirst} without`,
  );
  console.log(
    `time per turn: turn 1 ${result.turn1Ms} ms -> turn ${turns} ${result.turnLastMs} ms with reuse; ${result.turn1MsNoReuse} -> ${result.turnLastMsNoReuse} ms without`,
  );
}
