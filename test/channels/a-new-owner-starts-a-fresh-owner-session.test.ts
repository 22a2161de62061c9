/**
 * Ownership changes at runtime (pairing adds `qq:ID` to `agent.owners`; the running
 * service replaces the list in place). The person's next turn is an owner turn at once,
 * and it does not continue the session they had as a stranger: that session belonged to
 * a stranger, so its text never becomes the owner's context (it stays in the history).
 * Removing an owner works the same way round. The real dispatcher, agent, context engine
 * and SQLite store; the scripted model shows what each turn was sent.
 */
import { afterEach, describe, expect, it } from "vitest";
import { Dispatcher, type InboundMessage } from "../../src/channels/index.ts";
import { qqCapabilities } from "../../src/channels/qq/qq-capabilities.ts";
import { createSessionResolver } from "../../src/sessions/index.ts";
import { silentLogger } from "../../src/system/index.ts";
import { createHarness, type Harness } from "../agent/agent-harness.ts";
import { createFakeProvider, type FakeProvider } from "../fakes/fake-provider.ts";

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

let seq = 0;
const direct = (senderId: string, text: string): InboundMessage => ({
  channel: "qq",
  messageId: `m-${++seq}`,
  chatType: "direct",
  senderId,
  text,
  mentioned: false,
  sentAt: Date.now(),
  attachments: [],
});

function setup(agent: Record<string, unknown>): {
  fake: FakeProvider;
  h: Harness;
  say: (senderId: string, text: string) => Promise<void>;
} {
  const fake = createFakeProvider({ script: () => ({ text: "ok" }) });
  const h = createHarness({ providers: { fake }, engine: "real", config: { agent } });
  harness = h;
  const dispatcher = new Dispatcher({
    db: h.store.db,
    agent: h.agent,
    tools: h.config.tools,
    sessions: createSessionResolver(h.config.agent),
    logger: silentLogger,
    onReplies: () => {},
    workspace: h.paths.workspace,
  });
  dispatcher.register("qq", {
    capabilities: qqCapabilities(false),
    access: { allowFrom: [], groupPolicy: "mention" },
  });
  return {
    fake,
    h,
    async say(senderId, text) {
      dispatcher.receive(direct(senderId, text));
      await dispatcher.drain();
    },
  };
}

const KEY = "agent:main:qq:direct:NEW";
const tools = (fake: FakeProvider) => fake.requests.at(-1)?.tools.map((t) => t.name) ?? [];
const sent = (fake: FakeProvider) => JSON.stringify(fake.requests.at(-1)?.messages);

describe("an owner added while the box runs", () => {
  it("gets owner turns at once, in a fresh session; the stranger-era one stays in the history", async () => {
    const { fake, h, say } = setup({ owners: ["cli"] });
    await say("NEW", "STRANGER-ERA: please pair me");
    const before = h.store.sessions.byKey(KEY);
    expect(before?.principal).toBe("qq:NEW");
    expect(tools(fake)).not.toContain("exec");

    // What `clawbox pairing approve` leads to in a running service (live-config.ts).
    h.config.agent.owners = [...h.config.agent.owners, "qq:NEW"];
    await say("NEW", "now as the owner");
    const after = h.store.sessions.byKey(KEY);
    expect(after?.principal).toBe("owner");
    expect(after?.sessionId).not.toBe(before?.sessionId);
    expect(h.store.sessions.get(before?.sessionId ?? "")?.principal).toBe("qq:NEW");
    expect(tools(fake)).toContain("exec");
    expect(sent(fake)).not.toContain("STRANGER-ERA");

    // Removed again: back to a stranger's session, without the owner-era turns.
    h.config.agent.owners = ["cli"];
    await say("NEW", "a stranger again");
    const again = h.store.sessions.byKey(KEY);
    expect(again?.principal).toBe("qq:NEW");
    expect(sent(fake)).not.toContain("now as the owner");
    expect(tools(fake)).not.toContain("exec");
  });

  it('with directSessionMode "main", their direct chats join the main session from then on', async () => {
    const { h, say } = setup({ owners: ["cli"], directSessionMode: "main" });
    await say("NEW", "hello");
    expect(h.store.sessions.byKey("agent:main:main")).toBeUndefined();
    h.config.agent.owners = [...h.config.agent.owners, "qq:NEW"];
    await say("NEW", "hello as owner");
    expect(h.store.sessions.byKey("agent:main:main")?.principal).toBe("owner");
  });
});
