/**
 * The dispatcher stops answering WINDOW_SAFETY_MS (15 s) before a platform's reply
 * window closes, because sending takes time (docs/CHANNELS.md). QQ gives a group message
 * 5 minutes: a message whose window closes in 10 s is not answered (the model is not even
 * called), and a reply that is stored expires 15 s before the window does, so the outbox
 * never sends into a closed window. Issue 37 ("three promises no test guards").
 */
import { afterEach, describe, expect, it } from "vitest";
import { Dispatcher, type InboundMessage, WINDOW_SAFETY_MS } from "../../src/channels/index.ts";
import { qqCapabilities } from "../../src/channels/qq/qq-capabilities.ts";
import { createSessionResolver } from "../../src/sessions/index.ts";
import { silentLogger } from "../../src/system/index.ts";
import { createHarness, type Harness } from "../agent/agent-harness.ts";
import { createFakeProvider } from "../fakes/fake-provider.ts";

const GROUP_WINDOW_MS = 5 * 60_000;
const OPENID = "0123456789ABCDEF0123456789ABCDEF";

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

function groupMessage(id: string, sentAt: number): InboundMessage {
  return {
    channel: "qq",
    messageId: id,
    chatType: "group",
    groupId: "GROUP0123456789ABCDEF0123456789AB",
    senderId: OPENID,
    text: "灯关了吗？",
    mentioned: true,
    sentAt,
    attachments: [],
  };
}

describe("the reply window's safety margin", () => {
  it("is 15 s on QQ: no run when less is left, and a stored reply expires 15 s early", async () => {
    expect(WINDOW_SAFETY_MS).toBe(15_000);
    const fake = createFakeProvider({ script: () => ({ text: "关了。" }) });
    const h = createHarness({ providers: { fake }, engine: "real" });
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

    // 10 s left of the window: inside the margin, so not answered at all.
    const late = Date.now() - GROUP_WINDOW_MS + 10_000;
    expect(dispatcher.receive(groupMessage("late", late))).toBe("accepted");
    await dispatcher.drain();
    expect(fake.requests).toHaveLength(0);
    const state = h.store.db
      .query("SELECT state FROM channel_inbox WHERE message_id = 'late'")
      .get() as { state: string };
    expect(state.state).toBe("expired");

    // 2 minutes left: answered, and the reply expires 15 s before the window closes.
    const fresh = Date.now() - GROUP_WINDOW_MS + 120_000;
    expect(dispatcher.receive(groupMessage("fresh", fresh))).toBe("accepted");
    await dispatcher.drain();
    expect(fake.requests).toHaveLength(1);
    const row = h.store.db
      .query("SELECT expires_at FROM channel_outbox WHERE reply_to = 'fresh'")
      .get() as { expires_at: number };
    expect(row.expires_at).toBe(fresh + GROUP_WINDOW_MS - 15_000);
  });
});
