import { afterEach, describe, expect, it } from "vitest";
import { Dispatcher, type InboundMessage } from "../../src/channels/index.ts";
import { qqCapabilities } from "../../src/channels/qq/qq-capabilities.ts";
import { createSessionResolver } from "../../src/sessions/index.ts";
import { createLogger, type Logger, silentLogger } from "../../src/system/index.ts";
import { createHarness, type Harness } from "../agent/agent-harness.ts";
import { createFakeProvider, type FakeProvider } from "../fakes/fake-provider.ts";

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

function message(overrides: Partial<InboundMessage> = {}): InboundMessage {
  return {
    channel: "qq",
    messageId: "m-1",
    chatType: "direct",
    senderId: "USER1",
    text: "hello box",
    mentioned: false,
    sentAt: Date.now(),
    attachments: [],
    ...overrides,
  };
}

/** A dispatcher over the harness's database and agent (a new one = the process restarted). */
function dispatcherFor(
  h: Harness,
  allowFrom: string[] = [],
  logger: Logger = silentLogger,
): Dispatcher {
  const dispatcher = new Dispatcher({
    db: h.store.db,
    agent: h.agent,
    tools: h.config.tools,
    sessions: createSessionResolver(h.config.agent),
    logger,
    onReplies: () => {},
    workspace: h.paths.workspace,
  });
  dispatcher.register("qq", {
    capabilities: qqCapabilities(false),
    access: { allowFrom, groupPolicy: "mention" },
  });
  return dispatcher;
}

function setup(
  config: Record<string, unknown> = {},
  allowFrom: string[] = [],
): { fake: FakeProvider; dispatcher: Dispatcher; h: Harness } {
  const fake = createFakeProvider({ script: () => ({ text: "hi there" }) });
  const h = createHarness({ providers: { fake }, engine: "real", config });
  harness = h;
  return { fake, dispatcher: dispatcherFor(h, allowFrom), h };
}

function outboxRows(h: Harness) {
  return h.store.db
    .query("SELECT reply_to, seq, peer_id, body, state FROM channel_outbox ORDER BY id")
    .all() as { reply_to: string; seq: number; peer_id: string; body: string; state: string }[];
}

describe("channel dispatch", () => {
  it("answers a message once and drops the same platform message id when it comes again", async () => {
    const { fake, dispatcher, h } = setup();
    expect(dispatcher.receive(message())).toBe("accepted");
    expect(dispatcher.receive(message())).toBe("duplicate");
    await dispatcher.drain();
    // The same event after a restart: a new dispatcher over the same database.
    const again = dispatcherFor(h);
    expect(again.receive(message())).toBe("duplicate");
    await again.drain();
    expect(fake.requests).toHaveLength(1);
    const rows = outboxRows(harness as Harness);
    expect(rows).toEqual([
      {
        reply_to: "m-1",
        seq: 1,
        peer_id: "USER1",
        body: JSON.stringify({ text: "hi there" }),
        state: "pending",
      },
    ]);
  });

  it("puts the per-message facts in the stamp of the user message, not in the system prompt", async () => {
    const { fake, dispatcher } = setup();
    dispatcher.receive(
      message({ messageId: "m-envelope", chatType: "group", groupId: "G1", mentioned: true }),
    );
    await dispatcher.drain();
    const request = fake.requests[0];
    expect(request).toBeDefined();
    if (!request) return;
    const stamp = String(request.messages.at(-1)?.content).split("\n\n")[0];
    for (const fact of [
      "message_id: m-envelope",
      "sender: qq:USER1",
      "chat: group G1",
      "channel_can: plain text",
    ])
      expect(stamp).toContain(fact);
    for (const perMessage of ["m-envelope", "USER1", "G1", "channel_can"])
      expect(request.systemPrompt).not.toContain(perMessage);
    expect(harness?.store.sessions.byKey("agent:main:qq:group:G1")).toBeDefined();
    expect(outboxRows(harness as Harness)[0]?.peer_id).toBe("G1");
  });

  it("answers a stored but unanswered message once after a restart, and not when its reply is stored", async () => {
    const { fake, dispatcher } = setup();
    const h = harness as Harness;
    // As left by a crash: two messages stored, one already has its reply in the outbox.
    dispatcher.inbox.record(message({ messageId: "m-left" }));
    dispatcher.inbox.record(message({ messageId: "m-replied" }));
    dispatcher.outbox.enqueue({ channel: "qq", chatType: "direct", peerId: "USER1" }, ["earlier"], {
      replyTo: "m-replied",
    });
    expect(dispatcher.recover("qq")).toBe(2);
    await dispatcher.drain();
    expect(dispatcher.recover("qq")).toBe(0);
    expect(fake.requests).toHaveLength(1);
    expect(outboxRows(h).map((r) => r.reply_to)).toEqual(["m-replied", "m-left"]);
  });

  it("does not run the agent for a message whose reply window has closed, and logs it", async () => {
    const { fake, h } = setup();
    const lines: string[] = [];
    const dispatcher = dispatcherFor(
      h,
      [],
      createLogger({ level: "info", write: (l) => lines.push(l) }),
    );
    dispatcher.receive(
      message({
        messageId: "m-old",
        chatType: "group",
        groupId: "G1",
        mentioned: true,
        sentAt: Date.now() - 5 * 60_000,
      }),
    );
    await dispatcher.drain();
    expect(fake.requests).toHaveLength(0);
    const row = harness?.store.db.query("SELECT state, reason FROM channel_inbox").get();
    expect(row).toEqual({ state: "expired", reason: "reply window closed before the agent ran" });
    const line = lines.find((l) => l.includes("reply window closed before the agent ran"));
    expect(line).toMatch(/^WARN /);
    expect(line).toContain('"messageId":"m-old"');
    expect(line).toMatch(/"waitedMs":\d+/);
  });

  it("ignores strangers outside allowFrom and group messages without an @-mention", async () => {
    const { fake, dispatcher } = setup({}, ["FRIEND", "group:G-OK"]);
    expect(dispatcher.receive(message({ messageId: "a", senderId: "STRANGER" }))).toBe("denied");
    expect(dispatcher.receive(message({ messageId: "b", senderId: "FRIEND" }))).toBe("accepted");
    expect(
      dispatcher.receive(
        message({
          messageId: "c",
          senderId: "X",
          chatType: "group",
          groupId: "G-OK",
          mentioned: false,
        }),
      ),
    ).toBe("denied");
    expect(
      dispatcher.receive(
        message({
          messageId: "d",
          senderId: "X",
          chatType: "group",
          groupId: "G-OK",
          mentioned: true,
        }),
      ),
    ).toBe("accepted");
    await dispatcher.drain();
    expect(fake.requests).toHaveLength(2);
  });

  it("with directSessionMode \"main\" folds owners' direct chats into the main session, never a stranger's", async () => {
    // Issue 22: a stranger's direct message landed in agent:main:main, saw the owner's
    // earlier turns, and its text reached the owner's next turn (which has every tool).
    const { fake, dispatcher, h } = setup({
      agent: { directSessionMode: "main", owners: ["cli", "qq:A", "qq:C"] },
    });
    dispatcher.receive(message({ messageId: "x1", senderId: "A", text: "OWNER-SECRET-PLAN" }));
    await dispatcher.drain();
    dispatcher.receive(message({ messageId: "x2", senderId: "B", text: "STRANGER-INJECTION" }));
    await dispatcher.drain();
    dispatcher.receive(message({ messageId: "x3", senderId: "C", text: "second owner" }));
    await dispatcher.drain();
    const main = h.store.sessions.byKey("agent:main:main");
    expect(main?.principal).toBe("owner");
    expect(h.store.sessions.byKey("agent:main:qq:direct:A")).toBeUndefined();
    expect(h.store.sessions.byKey("agent:main:qq:direct:B")?.principal).toBe("qq:B");
    const prompts = fake.requests.map((r) => JSON.stringify(r.messages));
    // The stranger's turn saw nothing of the owner's, and the owners' next turn nothing of the stranger's.
    expect(prompts[1]).not.toContain("OWNER-SECRET-PLAN");
    expect(prompts[2]).toContain("OWNER-SECRET-PLAN");
    expect(prompts[2]).not.toContain("STRANGER-INJECTION");
  });

  it("offers owner-only tools to a QQ owner but not to a stranger, and sends nothing for NO_REPLY", async () => {
    const fake = createFakeProvider({
      script: (request) =>
        JSON.stringify(request.messages.at(-1)?.content).includes("quiet")
          ? { text: "<think>nothing to say</think>NO_REPLY" }
          : { text: "ok" },
    });
    const h = createHarness({
      providers: { fake },
      engine: "real",
      config: { agent: { owners: ["cli", "qq:OWNER"] } },
    });
    harness = h;
    const dispatcher = dispatcherFor(h);
    dispatcher.receive(message({ messageId: "o1", senderId: "OWNER" }));
    dispatcher.receive(message({ messageId: "s1", senderId: "STRANGER" }));
    dispatcher.receive(message({ messageId: "q1", senderId: "OWNER", text: "be quiet" }));
    await dispatcher.drain();
    const toolsOf = (i: number) => (fake.requests[i]?.tools ?? []).map((t) => t.name);
    const from = (sender: string) =>
      fake.requests.findIndex((r) => String(r.messages.at(-1)?.content).includes(sender));
    const owner = from("sender: qq:OWNER");
    const stranger = from("sender: qq:STRANGER");
    expect(toolsOf(owner)).toContain("exec");
    expect(toolsOf(stranger)).not.toContain("exec");
    expect(toolsOf(stranger).length).toBeLessThan(toolsOf(owner).length);
    expect(
      outboxRows(h)
        .map((r) => r.reply_to)
        .sort(),
    ).toEqual(["o1", "s1"]);
    const quiet = h.store.db
      .query("SELECT state, reason FROM channel_inbox WHERE message_id = 'q1'")
      .get();
    expect(quiet).toEqual({ state: "answered", reason: "silent reply" });
  });
});
