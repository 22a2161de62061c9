/**
 * local-speed: what the local provider adds per generated token. Generates N tokens
 * from the same ~2000-token prompt on stories260K with one thread, (a) with a bare
 * node-llama-cpp `LlamaContextSequence.evaluate` loop and (b) through
 * `LocalProvider.stream`, runs interleaved, and reports decode ms/token (first token to
 * last) and prompt time for both. Each run starts from an empty KV cache.
 *
 *   npm run bench -- local-speed [--json] [--runs N] [--tokens N] [--prompt N] [--model PATH]
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import type { Token } from "node-llama-cpp";
import { LocalProvider } from "../../src/providers/index.ts";
import { acquireModel, releaseModel } from "../../src/providers/local/llama-runtime.ts";

const args = process.argv.slice(2);
const json = args.includes("--json");
const runs = Number(argAfter("--runs") ?? 4);
const tokens = Number(argAfter("--tokens") ?? 200);
const promptTarget = Number(argAfter("--prompt") ?? 2000);
const modelPath =
  argAfter("--model") ?? join(import.meta.dirname, "../../../shared/models/stories260K.gguf");
const contextSize = 4096;

function argAfter(flag: string): string | undefined {
  const index = args.indexOf(flag);
  return index >= 0 ? args[index + 1] : undefined;
}

interface Run {
  promptMs: number;
  decodeMsPerToken: number;
  generated: number;
}

if (!existsSync(modelPath)) {
  console.error(`local-speed: model not found: ${modelPath}`);
  process.exit(2);
}

const model = await acquireModel(modelPath, 1);
const sentence = "Once upon a time there was a little girl who liked to play in the park. ";
const perSentence = model.tokenize(sentence).length;
const systemPrompt = sentence.repeat(Math.max(1, Math.round(promptTarget / perSentence)));

const provider = new LocalProvider("bench", {
  kind: "local",
  path: modelPath,
  threads: 1,
  temperature: 0,
  maxTokens: tokens,
  contextSize,
  sessions: 1,
});

async function viaProvider(run: number): Promise<Run & { promptTokens: number }> {
  const started = performance.now();
  let first: number | undefined;
  let last = started;
  let output = 0;
  let promptTokens = 0;
  for await (const event of provider.stream({
    systemPrompt,
    messages: [{ role: "user", content: "Tell me a story.", timestamp: 0 }],
    tools: [],
    maxTokens: tokens,
    // A new session each run: the one sequence is cleared, as in the raw loop.
    sessionId: `run-${run}`,
  })) {
    const now = performance.now();
    if (event.type === "text_delta") {
      first ??= now;
      last = now;
    }
    if (event.type === "done") {
      last = now;
      output = event.message.usage.output;
      promptTokens = event.message.usage.input + event.message.usage.cacheRead;
    }
    if (event.type === "error") throw event.error;
  }
  const firstAt = first ?? last;
  return {
    promptMs: firstAt - started,
    decodeMsPerToken: (last - firstAt) / Math.max(1, output - 1),
    generated: output,
    promptTokens,
  };
}

// Same context settings as the provider (flash attention off; see local-provider.ts).
const rawContext = await model.createContext({
  contextSize,
  sequences: 1,
  threads: 1,
  flashAttention: false,
});
const rawSequence = rawContext.getSequence();

async function viaRawLoop(promptTokens: Token[]): Promise<Run> {
  await rawSequence.clearHistory();
  const started = performance.now();
  let first: number | undefined;
  let last = started;
  let generated = 0;
  for await (const _token of rawSequence.evaluate(promptTokens, { temperature: 0 })) {
    const now = performance.now();
    first ??= now;
    last = now;
    generated += 1;
    if (generated >= tokens) break;
  }
  const firstAt = first ?? last;
  return {
    promptMs: firstAt - started,
    decodeMsPerToken: (last - firstAt) / Math.max(1, generated - 1),
    generated,
  };
}

// Warm-up; also learns the provider's prompt length so the raw loop matches it.
const warm = await viaProvider(-1);
const rawPrompt = model.tokenize(systemPrompt).slice(0, warm.promptTokens);
await viaRawLoop(rawPrompt);

const raw: Run[] = [];
const viaStream: Run[] = [];
for (let run = 0; run < runs; run += 1) {
  raw.push(await viaRawLoop(rawPrompt));
  viaStream.push(await viaProvider(run));
  if (!json) process.stderr.write(`\rrun ${run + 1}/${runs}   `);
}
await provider.dispose();
await rawContext.dispose();
await releaseModel(modelPath);

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  const value =
    sorted.length % 2 ? (sorted[mid] ?? 0) : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
  return Math.round(value * 100) / 100;
};
const result = {
  model: modelPath.split("/").at(-1),
  promptTokens: warm.promptTokens,
  tokens,
  runs,
  rawMsPerToken: median(raw.map((r) => r.decodeMsPerToken)),
  providerMsPerToken: median(viaStream.map((r) => r.decodeMsPerToken)),
  rawPromptMs: median(raw.map((r) => r.promptMs)),
  providerPromptMs: median(viaStream.map((r) => r.promptMs)),
  providerGenerated: median(viaStream.map((r) => r.generated)),
  rawRuns: raw.map((r) => Math.round(r.decodeMsPerToken * 100) / 100),
  providerRuns: viaStream.map((r) => Math.round(r.decodeMsPerToken * 100) / 100),
};

if (json) {
  console.log(JSON.stringify(result));
} else {
  console.log(
    `\nlocal-speed on ${result.model}: ${result.promptTokens}-token prompt, ${tokens} tokens, ${runs} runs each (interleaved), threads 1`,
  );
  console.log(
    `decode ms/token (median): raw ${result.rawMsPerToken}, provider ${result.providerMsPerToken} (${result.providerGenerated} generated)`,
  );
  console.log(`  raw runs:      ${result.rawRuns.join(" ")}`);
  console.log(`  provider runs: ${result.providerRuns.join(" ")}`);
  console.log(`prompt ms (median): raw ${result.rawPromptMs}, provider ${result.providerPromptMs}`);
}
