/**
 * `npm run bench -- heartbeat [--json]`: prompt size of a heartbeat against an owner
 * chat turn in the same workspace, the chat session holding a 50-turn history. Both go
 * through the real agent, context engine and tool policy; the fake provider records
 * exactly what a model would receive, counted with the project's token estimator:
 * system prompt + each message's text (+4 per message) + the tool schemas as JSON. Bar (issue 14): heartbeat < a quarter of chat.
 * {heartbeatPromptTokens, chatPromptTokens, ratio}
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createAgent } from "../../src/agent/index.ts";
import { configSchema } from "../../src/config/index.ts";
import { estimateTextTokens } from "../../src/context/index.ts";
import { emptyUsage, type Message, messageText } from "../../src/messages/index.ts";
import type { ProviderRequest } from "../../src/providers/index.ts";
import {
  createDelivery,
  createHeartbeat,
  createScheduler,
  runScheduledTurn,
} from "../../src/scheduler/index.ts";
import { createSessionResolver } from "../../src/sessions/index.ts";
import { Store } from "../../src/store/index.ts";
import { homePaths, silentLogger } from "../../src/system/index.ts";
import { seedWorkspace } from "../../src/workspace/index.ts";
import { createFakeProvider } from "../../test/fakes/fake-provider.ts";

const json = process.argv.includes("--json");
const home = mkdtempSync(join(tmpdir(), "clawbox-bench-heartbeat-"));
const paths = homePaths(home, undefined, {});
seedWorkspace(paths.workspace);
writeFileSync(
  join(paths.workspace, "HEARTBEAT.md"),
  "# HEARTBEAT.md\n\n- If the garage door has been open for more than an hour, tell me.\n- Remind me of anything due today.\n",
);
const config = configSchema.parse({
  models: { primary: "fake", fallbacks: [], providers: {} },
});
const provider = createFakeProvider({
  contextWindow: 32_768,
  script: (request) =>
    JSON.stringify(request.messages).includes("[Heartbeat]")
      ? { text: "HEARTBEAT_OK" }
      : { text: "好的，客厅的灯已经调暗了，车库门也关上了。" },
});
const store = Store.open({ path: paths.database });
const scheduler = createScheduler({
  config,
  store,
  workspace: paths.workspace,
  logger: silentLogger,
});
const agent = createAgent({
  config,
  store,
  paths,
  logger: silentLogger,
  providers: { fake: provider },
  tools: scheduler.tools,
});

// A 50-turn owner history (user + assistant per turn).
const sessionKey = "agent:main:cli:direct:owner";
const session = store.sessions.create({ sessionKey, chatType: "direct", cwd: paths.workspace });
store.db.transaction(() => {
  for (let i = 0; i < 50; i++) {
    const t = Date.now() - (50 - i) * 60_000;
    store.transcript.append(session.sessionId, {
      type: "message",
      message: {
        role: "user",
        content: `Turn ${i}: 请把客厅的灯调暗一点, and tell me whether the garage door is closed and what the weather will be tomorrow morning.`,
        timestamp: t,
      },
    });
    store.transcript.append(session.sessionId, {
      type: "message",
      message: {
        role: "assistant",
        content: [
          {
            type: "text",
            text: `Done (${i}): the living room lights are at 30%, the garage door is closed, and tomorrow morning will be cloudy, 4–9 °C with light wind from the north.`,
          },
        ],
        provider: "fake",
        model: "fake",
        usage: emptyUsage(),
        stopReason: "stop",
        timestamp: t + 1000,
      },
    });
  }
})();

const promptTokens = (request: ProviderRequest | undefined): number => {
  if (!request) throw new Error("no request recorded");
  return (
    estimateTextTokens(request.systemPrompt) +
    request.messages.reduce(
      (sum, message) => sum + estimateTextTokens(messageText(message as Message)) + 4,
      0,
    ) +
    estimateTextTokens(JSON.stringify(request.tools))
  );
};

await agent.chat({
  sessionKey,
  text: "Is the garage door closed?",
  channel: "cli",
  senderId: "cli",
  chatType: "direct",
});
const chatRequest = provider.requests.at(-1);
const delivery = createDelivery(silentLogger);
const heartbeat = createHeartbeat({
  config,
  store,
  workspace: paths.workspace,
  logger: silentLogger,
  runTurn: (turn) => runScheduledTurn(agent, delivery, turn),
  activeRuns: () => agent.activeRuns(),
  sessions: createSessionResolver(config.agent),
});
const beat = await heartbeat.beat();
if (beat.status !== "ran") throw new Error(`heartbeat did not run: ${beat.reason}`);
const heartbeatRequest = provider.requests.at(-1);

const chatPromptTokens = promptTokens(chatRequest);
const heartbeatPromptTokens = promptTokens(heartbeatRequest);
const ratio = Number((heartbeatPromptTokens / chatPromptTokens).toFixed(3));
const result = {
  heartbeatPromptTokens,
  chatPromptTokens,
  ratio,
  chatMessages: chatRequest?.messages.length,
  heartbeatMessages: heartbeatRequest?.messages.length,
  heartbeatTools: heartbeatRequest?.tools.length,
  chatTools: chatRequest?.tools.length,
  pass: ratio < 0.25,
};
await heartbeat.close();
await agent.close();
store.close();
rmSync(home, { recursive: true, force: true });
if (json) console.log(JSON.stringify(result));
else {
  console.log(
    `chat turn (50-turn history): ${chatPromptTokens} prompt tokens, ${result.chatMessages} messages, ${result.chatTools} tools`,
  );
  console.log(
    `heartbeat:                   ${heartbeatPromptTokens} prompt tokens, ${result.heartbeatMessages} messages, ${result.heartbeatTools} tools`,
  );
  console.log(`ratio ${ratio} (bar: < 0.25) ${result.pass ? "PASS" : "FAIL"}`);
  const parts = (r: ProviderRequest | undefined) =>
    `system prompt ${estimateTextTokens(r?.systemPrompt ?? "")}, tool schemas ${estimateTextTokens(JSON.stringify(r?.tools ?? []))} (${r?.tools.map((t) => t.name).join(", ")})`;
  console.log(`chat:      ${parts(chatRequest)}`);
  console.log(`heartbeat: ${parts(heartbeatRequest)}`);
}
