/**
 * kv-reuse: how much of each prompt llama.cpp re-evaluates across a 30-turn session
 * with tool calls and tool results on stories260K. For every request it divides tokens
 * evaluated by tokens newly appended since the previous request (the reply the model
 * produced is not "new"); with KV reuse that ratio should stay near 1 (target <= 1.1),
 * without it the whole prompt is evaluated each time. Also times turn 1 against turn 30.
 *
 * Then across sessions and restarts (issue 39), with a system prompt as long as the
 * real default one (`--prefix-chars`, default 5800, the default system prompt's length in
 * a fresh home with an 8192-token window: ~4,000 tokens of this 512-token vocabulary) and
 * KV-cache states saved under a fresh folder: tokens evaluated on the first turn of a new
 * session ÷ the tokens new to it (its prompt minus the stable prefix), the same for the
 * first turn after a restart of the provider, and for a session that gave its sequence
 * to two others (÷ what it appended since its last turn), with and without saved states;
 * the time to evaluate the prefix against the time to load it, and the disk used.
 *
 *   npm run bench -- kv-reuse [--json] [--turns N] [--model PATH] [--prefix-chars N]
 *                             [--saved-only]
 */
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AssistantMessage, Message } from "../../src/messages/index.ts";
import { LocalProvider } from "../../src/providers/index.ts";

const args = process.argv.slice(2);
const json = args.includes("--json");
const turns = Number(argAfter("--turns") ?? 30);
const prefixChars = Number(argAfter("--prefix-chars") ?? 5800);
const savedOnly = args.includes("--saved-only");
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

interface TurnFigures {
  input: number;
  prompt: number;
  output: number;
  message: AssistantMessage;
  reuse: NonNullable<NonNullable<ReturnType<LocalProvider["stats"]>["kvCache"]>["lastRequest"]>;
}

const householdLines = [
  "You are the assistant of a family home on a small box in the hallway.",
  "Answer in the language you are spoken to, briefly and kindly; never invent sensor values.",
  "The owner may ask you to switch lights, read sensors, set reminders and remember facts.",
  "Strangers get polite general answers and never reach the owner's tools or private memory.",
];

/** A stable system prompt of about `chars` characters. */
function longSystemPrompt(chars: number): string {
  const lines: string[] = [];
  for (let i = 0; lines.join("\n").length < chars; i += 1)
    lines.push(`${i + 1}. ${householdLines[i % householdLines.length]}`);
  return `${lines.join("\n")}\n`;
}

/** `prefixTokens`: the stable prefix's length, as the run with saved states measured it. */
async function savedStates(withStates: boolean, knownPrefixTokens?: number) {
  const kvCacheDir = withStates ? mkdtempSync(join(tmpdir(), "clawbox-bench-kv-")) : undefined;
  const prompt = longSystemPrompt(prefixChars);
  const open = () =>
    new LocalProvider(
      "bench",
      {
        kind: "local",
        path: modelPath,
        threads: 1,
        temperature: 0,
        maxTokens: 24,
        contextSize: 8192,
        sessions: 2,
        maxArgChars: 12,
      },
      kvCacheDir ? { kvCacheDir } : {},
    );
  const histories = new Map<string, Message[]>();
  // Each session's own history, as the agent would keep it.
  const turn = async (provider: LocalProvider, session: string, text: string) => {
    const messages = histories.get(session) ?? [];
    messages.push({ role: "user", content: text, timestamp: Date.now() });
    let final: AssistantMessage | undefined;
    for await (const event of provider.stream({
      systemPrompt: prompt,
      cacheBoundary: prompt.length,
      messages,
      tools,
      toolChoice: "auto",
      sessionId: session,
    })) {
      if (event.type === "done") final = event.message;
      if (event.type === "error") throw event.error;
    }
    if (!final) throw new Error("no reply");
    messages.push(final);
    histories.set(session, messages);
    const reuse = provider.stats().kvCache?.lastRequest ?? {
      prefixTokens: 0,
      loadedTokens: 0,
      loadMs: 0,
      prefixEvaluated: 0,
      prefixEvalMs: 0,
    };
    return {
      input: final.usage.input,
      prompt: final.usage.input + final.usage.cacheRead,
      output: final.usage.output,
      message: final,
      reuse,
    } satisfies TurnFigures;
  };
  const before = open();
  const first = await turn(before, "first", "Good morning! Is the kitchen warm?");
  const second = await turn(before, "second", "Hello, who are you?");
  // Two more sessions take both sequences; "first" then comes back.
  await turn(before, "third", "Turn on the hall light please.");
  const fourth = await turn(before, "fourth", "What time is it?");
  const returning = await turn(before, "first", "And the living room?");
  await before.dispose();
  const after = open();
  const restarted = await turn(after, "fifth", "Hi, I am new here.");
  const resumed = await turn(after, "fourth", "Thanks. Anything else?");
  await after.dispose();
  const diskBytes = kvCacheDir ? folderBytes(kvCacheDir) : 0;
  if (kvCacheDir) rmSync(kvCacheDir, { recursive: true, force: true });
  // The stable prefix is the same in every session; the first turn measured it.
  const prefixTokens = knownPrefixTokens ?? first.reuse.prefixTokens;
  const newTo = (t: TurnFigures) => t.input / (t.prompt - prefixTokens);
  const appendedRatio = (t: TurnFigures, previous: TurnFigures) =>
    t.input / (t.prompt - (previous.prompt + previous.output));
  return {
    prefixTokens,
    firstPromptTokens: first.prompt,
    newSessionEvalRatio: round(newTo(second)),
    afterRestartEvalRatio: round(newTo(restarted)),
    returningSessionEvalRatio: round(appendedRatio(returning, first)),
    afterRestartReturningEvalRatio: round(appendedRatio(resumed, fourth)),
    prefixEvalMs: round(first.reuse.prefixEvalMs),
    prefixLoadMs: round(restarted.reuse.loadMs),
    newSessionLoadMs: round(second.reuse.loadMs),
    returningLoadMs: round(returning.reuse.loadMs),
    diskBytes,
  };
}
if (!existsSync(modelPath)) {
  console.error(`kv-reuse: model not found: ${modelPath}`);
  process.exit(2);
}
const saved = await savedStates(true);
const unsaved = await savedStates(false, saved.prefixTokens);
const acrossSessions = {
  prefixTokens: saved.prefixTokens,
  firstPromptTokens: saved.firstPromptTokens,
  newSessionEvalRatio: saved.newSessionEvalRatio,
  afterRestartEvalRatio: saved.afterRestartEvalRatio,
  returningSessionEvalRatio: saved.returningSessionEvalRatio,
  afterRestartReturningEvalRatio: saved.afterRestartReturningEvalRatio,
  newSessionEvalRatioWithoutSavedStates: unsaved.newSessionEvalRatio,
  afterRestartEvalRatioWithoutSavedStates: unsaved.afterRestartEvalRatio,
  returningSessionEvalRatioWithoutSavedStates: unsaved.returningSessionEvalRatio,
  afterRestartReturningEvalRatioWithoutSavedStates: unsaved.afterRestartReturningEvalRatio,
  prefixEvalMs: saved.prefixEvalMs,
  prefixLoadMs: saved.prefixLoadMs,
  newSessionLoadMs: saved.newSessionLoadMs,
  returningLoadMs: saved.returningLoadMs,
  kvDiskBytes: saved.diskBytes,
};
const withReuse = savedOnly ? undefined : await runSession(true);
const without = savedOnly ? undefined : await runSession(false);
// The first request of a session has nothing to reuse; ratios count the steady state too.
const withinSession =
  withReuse && without
    ? {
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
      }
    : {};
const result = { model: modelPath.split("/").at(-1), ...withinSession, ...acrossSessions };

function round(value: number): number {
  return Math.round(value * 1000) / 1000;
}

function folderBytes(dir: string): number {
  let sum = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) sum += statSync(join(entry.parentPath, entry.name)).size;
  }
  return sum;
}

if (json) {
  console.log(JSON.stringify(result));
} else {
  if (withReuse && without) {
    console.log(
      `kv-reuse on ${result.model}: ${turns} turns, ${withReuse.requests.length} requests (tool calls + results included)`,
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
      `overall ratio: ${withinSession.evalRatio} with reuse, ${withinSession.evalRatioNoReuse} without (target <= 1.1)`,
    );
    console.log(
      `after the first request: ${withinSession.evalRatioAfterFirst} with reuse, ${withinSession.evalRatioNoReuseAfterFirst} without`,
    );
    console.log(
      `time per turn: turn 1 ${withinSession.turn1Ms} ms -> turn ${turns} ${withinSession.turnLastMs} ms with reuse; ${withinSession.turn1MsNoReuse} -> ${withinSession.turnLastMsNoReuse} ms without`,
    );
  }
  const a = acrossSessions;
  console.log(
    `across sessions (stable prefix ${a.prefixTokens} tokens; evaluated ÷ new, target <= 1.2; without saved states in brackets):`,
  );
  console.log(
    `  new session ${a.newSessionEvalRatio} (${a.newSessionEvalRatioWithoutSavedStates}), after a restart ${a.afterRestartEvalRatio} (${a.afterRestartEvalRatioWithoutSavedStates}), returning session ${a.returningSessionEvalRatio} (${a.returningSessionEvalRatioWithoutSavedStates}), returning after a restart ${a.afterRestartReturningEvalRatio} (${a.afterRestartReturningEvalRatioWithoutSavedStates})`,
  );
  console.log(
    `  prefix: evaluate ${a.prefixEvalMs} ms, load ${a.prefixLoadMs} ms; disk ${a.kvDiskBytes} bytes`,
  );
}
