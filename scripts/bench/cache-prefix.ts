/**
 * `npm run bench -- cache-prefix [--json] [--turns N] [--no-local]`: how much of each
 * request a provider's prompt cache could serve. One household conversation of N turns
 * (default 20; every fifth turn the model reads TOOLS.md with a tool call, so tool
 * loops are in it) goes through the real agent, context engine and tools to:
 *
 *  - the OpenAI-compatible provider, against a fake that implements OpenAI's automatic
 *    prefix caching (longest common prefix with an earlier prompt, ≥ 1,024 tokens, in
 *    steps of 128; test/fakes/prompt-cache.ts);
 *  - the Anthropic provider, against a fake that implements Anthropic's breakpoints
 *    (a read needs a breakpoint whose whole prefix an earlier request wrote);
 *  - the local llama.cpp provider on ../shared/models/stories260K.gguf (skipped when
 *    absent), where the figure is llama.cpp's own: tokens evaluated per token newly
 *    appended since the previous request (`evalRatio`, as `kv-reuse` computes it).
 *
 * Every turn carries new per-turn facts (message id, reply target, time). Reported per
 * cloud kind: distinct system prompts and tool lists per session, the median share of
 * each request's input the cache could serve from turn 2 on (and the lowest), and the
 * cached tokens the fake would report. Targets (issue 29): one system-prompt variant
 * per session, share ≥ 0.9 for both kinds, local evalRatio ≤ 1.05.
 */
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { createAgent } from "../../src/agent/index.ts";
import { type ClawboxConfig, configSchema } from "../../src/config/index.ts";
import type { AssistantMessage } from "../../src/messages/index.ts";
import { createScheduler } from "../../src/scheduler/index.ts";
import { Store } from "../../src/store/index.ts";
import { homePaths, silentLogger } from "../../src/system/index.ts";
import { seedWorkspace } from "../../src/workspace/index.ts";
import { anthropicReply, startFakeAnthropic } from "../../test/fakes/anthropic-server.ts";
import { openaiText, openaiToolCall, startFakeOpenAI } from "../../test/fakes/openai-server.ts";
import { AnthropicPromptCache, OpenAIPromptCache } from "../../test/fakes/prompt-cache.ts";
import type { RecordedRequest, ScriptedServer } from "../../test/fakes/scripted-sse-server.ts";

const root = resolve(import.meta.dir, "../..");
const args = process.argv.slice(2);
const json = args.includes("--json");
const turns = Number(args[args.indexOf("--turns") + 1] ?? 20) || 20;
const storiesModel = join(root, "..", "shared", "models", "stories260K.gguf");
const log = (line: string) => {
  if (!json) console.log(line);
};

const QUESTIONS = [
  "Good evening! Is the kitchen light still on?",
  "How warm is it in the living room right now?",
  "Please close the garage door.",
  "What did I ask you to remember about the plants?",
  "Which devices are in this house? Check TOOLS.md.",
  "把客厅的灯调暗一点。",
  "Is the washing machine done?",
  "Remind me at 7 to take out the bins.",
  "Is the front door locked?",
  "What is on the calendar tomorrow? Check TOOLS.md for the calendar.",
];
const REPLIES = [
  "Yes, the kitchen light is on at 60 %. Shall I switch it off or dim it for the evening?",
  "It is 21.5 °C in the living room with 48 % humidity. The window is closed and the heating is set to 21 °C.",
  "Done: the garage door is closed and the lock reports secured.",
  "You asked me to water the basil every second day and the orchid once a week on Sundays.",
  "客厅的灯已调到 30%。还需要别的吗？",
  "The washing machine finished 12 minutes ago; the dryer is free if you want to move the laundry.",
  "I will remind you at 19:00 to take out the bins.",
  "The front door is locked; the last unlock was at 17:42 by the keypad.",
];

interface RequestFigure {
  turn: number;
  total: number;
  cached: number;
  cacheWrite: number;
  system: string;
  tools: string;
}

type Json = Record<string, unknown>;
const list = (value: unknown): Json[] => (Array.isArray(value) ? (value as Json[]) : []);
const withoutMarkers = (value: unknown) =>
  JSON.stringify(value, (key, v) => (key === "cache_control" ? undefined : v));

/** The user's own words in the last message, and whether it is a tool result. */
function lastTurnOf(body: Json): { text: string; toolResult: boolean } {
  const last = list(body.messages).at(-1);
  if (!last) return { text: "", toolResult: false };
  if (last.role === "tool") return { text: "", toolResult: true };
  const content = last.content;
  if (typeof content === "string") return { text: content, toolResult: false };
  const blocks = list(content);
  return {
    text: blocks.map((b) => (typeof b.text === "string" ? b.text : "")).join(""),
    toolResult: blocks.some((b) => b.type === "tool_result"),
  };
}

function wantsTool(body: Json): boolean {
  const last = lastTurnOf(body);
  return !last.toolResult && last.text.includes("TOOLS.md");
}

function replyFor(turn: number): string {
  return REPLIES[turn % REPLIES.length] ?? "ok";
}

interface CloudKind {
  name: "openai" | "anthropic";
  start(figures: RequestFigure[], turn: () => number): Promise<ScriptedServer>;
  provider(url: string): Json;
}

const cloudKinds: CloudKind[] = [
  {
    name: "openai",
    start(figures, turn) {
      const cache = new OpenAIPromptCache();
      return startFakeOpenAI((request: RecordedRequest) => {
        const usage = cache.serve(request.body);
        const messages = list(request.body.messages);
        figures.push({
          turn: turn(),
          total: usage.prompt,
          cached: usage.cached,
          cacheWrite: 0,
          system: withoutMarkers(messages.filter((m) => m.role === "system")),
          tools: withoutMarkers(request.body.tools),
        });
        const tokens = { prompt: usage.prompt, cached: usage.cached, completion: 30 };
        return wantsTool(request.body)
          ? openaiToolCall("read", '{"path":"TOOLS.md"}', { id: `call_${turn()}`, usage: tokens })
          : openaiText(replyFor(turn()), { usage: tokens });
      });
    },
    provider: (url) => ({ kind: "openai", baseUrl: url, model: "gpt-fake" }),
  },
  {
    name: "anthropic",
    start(figures, turn) {
      const cache = new AnthropicPromptCache();
      return startFakeAnthropic((request: RecordedRequest) => {
        const usage = cache.serve(request.body);
        figures.push({
          turn: turn(),
          total: usage.total,
          cached: usage.cacheRead,
          cacheWrite: usage.cacheWrite,
          system: withoutMarkers(request.body.system),
          tools: withoutMarkers(request.body.tools),
        });
        const tokens = { ...usage, output: 30 };
        return wantsTool(request.body)
          ? anthropicReply(
              [
                {
                  type: "tool_use",
                  id: `toolu_${turn()}`,
                  name: "read",
                  rawInput: '{"path":"TOOLS.md"}',
                },
              ],
              { usage: tokens },
            )
          : anthropicReply([{ type: "text", text: replyFor(turn()) }], { usage: tokens });
      });
    },
    provider: (url) => ({ kind: "anthropic", baseUrl: url, model: "claude-fake" }),
  },
];

const SESSION = "agent:main:qq:direct:OWNER";

/** One household conversation through a real agent whose primary model is `provider`. */
async function converse(provider: Json, onTurn: (turn: number) => void) {
  const home = mkdtempSync(join(tmpdir(), "clawbox-bench-cache-"));
  const paths = homePaths(home, undefined, {});
  seedWorkspace(paths.workspace);
  // A box past its first-run ritual: BOOTSTRAP.md is gone.
  rmSync(join(paths.workspace, "BOOTSTRAP.md"), { force: true });
  const config: ClawboxConfig = configSchema.parse({
    models: {
      primary: "bench",
      fallbacks: [],
      providers: {
        bench: { authProfiles: [{ id: "bench", apiKey: "bench-key-0123456789" }], ...provider },
      },
    },
    agent: { owners: ["qq:OWNER"], timezone: "Asia/Shanghai" },
    memory: { enabled: false },
  });
  const store = Store.open({ path: paths.database });
  const scheduler = createScheduler({
    config,
    store,
    workspace: paths.workspace,
    logger: silentLogger,
  });
  const agent = scheduler.observe(
    createAgent({ config, store, paths, logger: silentLogger, tools: scheduler.tools }),
  );
  const failures: string[] = [];
  let previous: string | undefined;
  try {
    for (let turn = 1; turn <= turns; turn++) {
      onTurn(turn);
      const messageId = `B7F${turn}${Math.random().toString(36).slice(2, 10)}`;
      const result = await agent.chat({
        sessionKey: SESSION,
        text: QUESTIONS[(turn - 1) % QUESTIONS.length] ?? "hi",
        channel: "qq",
        chatType: "direct",
        senderId: "qq:OWNER",
        senderName: "Ming",
        messageId,
        ...(previous ? { replyTo: previous } : {}),
        receivedAt: Date.now(),
        capabilities: "plain text, max 2000 chars, up to 5 messages",
      });
      if (result.error) failures.push(`turn ${turn}: ${result.error.code} ${result.error.message}`);
      previous = messageId;
    }
    const assistants = store.transcript
      .all(store.sessions.byKey(SESSION)?.sessionId ?? "")
      .flatMap((e) => (e.type === "message" && e.message.role === "assistant" ? [e.message] : []));
    return { failures, assistants };
  } finally {
    await scheduler.close();
    await agent.close();
    store.close();
    rmSync(home, { recursive: true, force: true });
  }
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  if (sorted.length === 0) return Number.NaN;
  return sorted.length % 2
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

const round = (n: number) => Math.round(n * 1000) / 1000;

async function cloud(kind: CloudKind) {
  const figures: RequestFigure[] = [];
  let current = 0;
  const server = await kind.start(figures, () => current);
  try {
    const { failures } = await converse(kind.provider(server.url), (turn) => {
      current = turn;
    });
    const later = figures.filter((f) => f.turn >= 2);
    const shares = later.map((f) => f.cached / f.total);
    return {
      requests: figures.length,
      failures,
      systemPromptVariants: new Set(figures.map((f) => f.system)).size,
      toolListVariants: new Set(figures.map((f) => f.tools)).size,
      medianCacheShareFromTurn2: round(median(shares)),
      lowestCacheShareFromTurn2: round(Math.min(...shares)),
      inputTokens: figures.reduce((a, f) => a + f.total, 0),
      cachedTokens: figures.reduce((a, f) => a + f.cached, 0),
      cacheWriteTokens: figures.reduce((a, f) => a + f.cacheWrite, 0),
      firstRequestTokens: figures[0]?.total ?? 0,
      lastRequestTokens: figures.at(-1)?.total ?? 0,
    };
  } finally {
    await server.close();
  }
}

/** llama.cpp's KV reuse over the same conversation: evaluated / newly appended tokens. */
async function local() {
  const { failures, assistants } = await converse(
    {
      kind: "local",
      path: storiesModel,
      threads: 1,
      temperature: 0,
      seed: 7,
      maxTokens: 32,
      contextSize: 16384,
    },
    () => {},
  );
  let previousTotal = 0;
  let evaluated = 0;
  let appended = 0;
  for (const message of assistants as AssistantMessage[]) {
    const prompt = message.usage.input + message.usage.cacheRead;
    evaluated += message.usage.input;
    appended += prompt - previousTotal;
    previousTotal = prompt + message.usage.output;
  }
  return {
    requests: assistants.length,
    failures,
    evalRatio: round(evaluated / Math.max(1, appended)),
    promptTokensAtEnd: previousTotal,
  };
}

const openai = await cloud(cloudKinds[0] as CloudKind);
const anthropic = await cloud(cloudKinds[1] as CloudKind);
const localFigures =
  args.includes("--no-local") || !existsSync(storiesModel) ? undefined : await local();
if (!localFigures)
  log(
    `local: skipped (${args.includes("--no-local") ? "--no-local" : `${storiesModel} is absent`})`,
  );

for (const [name, r] of [
  ["OpenAI-compatible", openai],
  ["Anthropic", anthropic],
] as const) {
  log(
    `${name}: ${turns} turns, ${r.requests} requests; system prompts ${r.systemPromptVariants}, tool lists ${r.toolListVariants} per session; cache-servable share from turn 2 median ${r.medianCacheShareFromTurn2} (lowest ${r.lowestCacheShareFromTurn2}); cached ${r.cachedTokens} of ${r.inputTokens} input tokens${r.cacheWriteTokens ? `, ${r.cacheWriteTokens} written` : ""}`,
  );
  for (const failure of r.failures) log(`  failed ${failure}`);
}
if (localFigures)
  log(
    `local llama.cpp (stories260K): ${localFigures.requests} requests, evalRatio ${localFigures.evalRatio} (evaluated / newly appended tokens)`,
  );
const pass =
  openai.failures.length === 0 &&
  anthropic.failures.length === 0 &&
  openai.systemPromptVariants === 1 &&
  anthropic.systemPromptVariants === 1 &&
  openai.medianCacheShareFromTurn2 >= 0.9 &&
  anthropic.medianCacheShareFromTurn2 >= 0.9 &&
  (localFigures === undefined || localFigures.evalRatio <= 1.05);
log(pass ? "targets met" : "targets missed");
if (json) {
  console.log(
    JSON.stringify({
      turns,
      openai,
      anthropic,
      local: localFigures ?? null,
      targets: { systemPromptVariants: 1, medianCacheShareFromTurn2: 0.9, evalRatio: 1.05 },
      pass,
    }),
  );
}
