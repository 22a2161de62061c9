/**
 * Per-turn facts (time, message id, reply target, sender) must never reach the system
 * prompt or the tool definitions, for any cloud provider kind: they would change the
 * start of every request and break the provider's prefix cache. Several turns with new
 * message ids (one with a tool loop) go through the real agent and context engine to
 * the OpenAI and Anthropic fakes over HTTP; every request must carry the same system
 * prompt and tools, none of them may contain a turn's facts, the facts must lead the
 * newest user message, and each request must replay the previous one's messages byte
 * for byte (stamps included) so the cache can serve them.
 */
import { afterEach, describe, expect, it } from "vitest";
import { anthropicReply, startFakeAnthropic } from "../fakes/anthropic-server.ts";
import { openaiText, openaiToolCall, startFakeOpenAI } from "../fakes/openai-server.ts";
import type { RecordedRequest, ScriptedServer, Step } from "../fakes/scripted-sse-server.ts";
import { createHarness, type Harness } from "./agent-harness.ts";

let harness: Harness | undefined;
let server: ScriptedServer | undefined;
afterEach(async () => {
  await harness?.close();
  await server?.close();
  harness = undefined;
  server = undefined;
});

type Json = Record<string, unknown>;
const list = (value: unknown): Json[] => (Array.isArray(value) ? (value as Json[]) : []);
const withoutMarkers = (value: unknown): string =>
  JSON.stringify(value, (key, v) => (key === "cache_control" ? undefined : v)) ?? "";

interface Wire {
  /** Starts the fake; `tool` decides when the reply is a `read` tool call. */
  start(tool: (request: RecordedRequest) => boolean): Promise<ScriptedServer>;
  provider(url: string): Json;
  system(body: Json): string;
  /** Messages after the system prompt, as the model sees them. */
  history(body: Json): Json[];
  lastUserText(body: Json): string;
}

const textOf = (content: unknown): string =>
  typeof content === "string"
    ? content
    : list(content)
        .map((b) => (typeof b.text === "string" ? b.text : ""))
        .join("");

const wires: Record<"openai" | "anthropic", Wire> = {
  openai: {
    start: (tool) =>
      startFakeOpenAI(
        (request): Step =>
          tool(request) ? openaiToolCall("read", '{"path":"TOOLS.md"}') : openaiText("noted"),
      ),
    provider: (url) => ({ kind: "openai", baseUrl: url, model: "gpt-fake" }),
    system: (body) => withoutMarkers(list(body.messages).filter((m) => m.role === "system")),
    history: (body) => list(body.messages).filter((m) => m.role !== "system"),
    lastUserText: (body) => textOf(list(body.messages).findLast((m) => m.role === "user")?.content),
  },
  anthropic: {
    start: (tool) =>
      startFakeAnthropic(
        (request): Step =>
          tool(request)
            ? anthropicReply([
                { type: "tool_use", id: "toolu_1", name: "read", rawInput: '{"path":"TOOLS.md"}' },
              ])
            : anthropicReply([{ type: "text", text: "noted" }]),
      ),
    provider: (url) => ({ kind: "anthropic", baseUrl: url, model: "claude-fake" }),
    system: (body) => withoutMarkers(body.system),
    history: (body) => list(body.messages),
    lastUserText: (body) =>
      textOf(
        list(body.messages).findLast(
          (m) => m.role === "user" && !list(m.content).some((b) => b.type === "tool_result"),
        )?.content,
      ),
  },
};

describe.each(["openai", "anthropic"] as const)("turn facts with the %s provider", (kind) => {
  it("never enter the system prompt or the tool definitions; they lead the user message and replay unchanged", async () => {
    const wire = wires[kind];
    server = await wire.start((request) => {
      const last = list(request.body.messages).at(-1);
      const toolResult =
        last?.role === "tool" || list(last?.content).some((b) => b.type === "tool_result");
      return !toolResult && textOf(last?.content).includes("TOOLS.md");
    });
    harness = createHarness({
      engine: "real",
      config: {
        models: {
          primary: "cloud",
          fallbacks: [],
          providers: {
            cloud: {
              ...wire.provider(server.url),
              authProfiles: [{ id: "k", apiKey: "test-key-0123456789" }],
            },
          },
        },
        agent: { owners: ["qq:OWNER"], timezone: "Asia/Shanghai" },
      },
    });
    const ids = ["MSG-7f3a91", "MSG-0b44c2", "MSG-e9d210"];
    const texts = ["lights on?", "which devices? read TOOLS.md", "thanks"];
    for (const [i, messageId] of ids.entries()) {
      const result = await harness.agent.chat({
        sessionKey: "agent:main:qq:direct:OWNER",
        text: texts[i] ?? "",
        channel: "qq",
        chatType: "direct",
        senderId: "qq:OWNER",
        senderName: "Ming",
        messageId,
        ...(i > 0 ? { replyTo: ids[i - 1] } : {}),
        receivedAt: Date.now(),
      });
      expect(result.error).toBeUndefined();
    }
    const bodies = server.requests.map((r) => r.body);
    expect(bodies.length).toBe(4);
    const stamps = bodies.map((b) => wire.lastUserText(b).split("\n\n")[0] ?? "");
    const times = stamps.map((s) => /time: (\d{4}-\d{2}-\d{2}) (\d{2}:\d{2})/.exec(s));
    for (const [i, body] of bodies.entries()) {
      const system = wire.system(body);
      const tools = withoutMarkers(body.tools);
      expect(system).toBe(wire.system(bodies[0] ?? {}));
      expect(tools).toBe(withoutMarkers(bodies[0]?.tools));
      expect(tools).toContain('"read"');
      for (const turnVarying of [...ids, "Ming", ...times.flatMap((t) => t?.slice(1) ?? [])]) {
        expect(system).not.toContain(turnVarying);
        expect(tools).not.toContain(turnVarying);
      }
      // The newest user message says who is speaking, in which message, and when.
      expect(stamps[i]).toMatch(
        /^\[turn channel: qq; chat: direct; sender: Ming \(qq:OWNER\); message_id: MSG-\w+; (reply_to: MSG-\w+; )?time: \d{4}-\d{2}-\d{2} \d{2}:\d{2} \w{3} \(Asia\/Shanghai\)\]$/,
      );
      // What the previous request sent comes again, byte for byte, before what is new.
      const before = bodies[i - 1];
      if (before) {
        const sent = wire.history(before).map(withoutMarkers);
        expect(wire.history(body).slice(0, sent.length).map(withoutMarkers)).toEqual(sent);
      }
    }
    expect(stamps.map((s) => /message_id: (MSG-\w+)/.exec(s)?.[1])).toEqual([
      ids[0],
      ids[1],
      ids[1],
      ids[2],
    ]);
  });
});
