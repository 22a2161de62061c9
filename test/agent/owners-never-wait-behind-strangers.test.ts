/**
 * Issue 37 ("Also"): with one first-come queue, an owner's turn waited 19.7 s behind 40
 * stranger requests. Now strangers get a bounded share: at most one stranger turn runs
 * at a time, at most sixteen wait or run (more are refused at once with a plain "busy"
 * reply), and a waiting owner turn starts before every waiting stranger turn. A scripted
 * slow model; the checks are on order and counts, never on time.
 */
import { afterEach, describe, expect, it } from "vitest";
import { STRANGER_PENDING } from "../../src/agent/session-gate.ts";
import type { ProviderRequest } from "../../src/providers/index.ts";
import { createFakeProvider } from "../fakes/fake-provider.ts";
import { createHarness, type Harness, ownerRequest } from "./agent-harness.ts";

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

const openid = (i: number) => `${String(i).padStart(4, "0")}${"A".repeat(28)}`;
const strangerTurn = (i: number) => ({
  sessionKey: `agent:main:qq:direct:${openid(i)}`,
  text: `第${i}个问题：明天下雨吗？`,
  channel: "qq",
  senderId: `qq:${openid(i)}`,
  chatType: "direct" as const,
});
const fromOwner = (request: ProviderRequest) =>
  JSON.stringify(request.messages).includes("主人的问题");

describe("owners never wait behind strangers", () => {
  it("40 strangers on a one-slot box: the owner's turn runs right after the one running stranger turn", async () => {
    const fake = createFakeProvider({
      // Slow: every reply streams one character at a time.
      script: (request) => ({
        text: fromOwner(request) ? "好的，主人。" : "明天有小雨。",
        chunkSize: 1,
        delayMs: 5,
      }),
    });
    harness = createHarness({ providers: { fake }, config: { agent: { maxConcurrent: 1 } } });
    const h = harness;
    const finished: string[] = [];
    const strangers = Array.from({ length: 40 }, (_, i) =>
      h.agent.chat(strangerTurn(i)).then((result) => {
        finished.push(result.error?.code === "AGENT_BUSY" ? "busy" : `stranger ${i}`);
        return result;
      }),
    );
    const owner = h.agent.chat(ownerRequest("主人的问题：门锁了吗？")).then((result) => {
      finished.push("owner");
      return result;
    });
    const ownerResult = await owner;
    expect(ownerResult.error).toBeUndefined();
    expect(ownerResult.reply).toBe("好的，主人。");
    const results = await Promise.all(strangers);

    // Beyond the strangers' share: refused at once, in plain words, never queued.
    const busy = results.filter((r) => r.error?.code === "AGENT_BUSY");
    expect(busy).toHaveLength(40 - STRANGER_PENDING);
    expect(busy[0]?.reply).toMatch(/busy answering other people/);
    // The owner waited behind one running stranger turn at most.
    const answered = finished.filter((f) => f !== "busy");
    expect(answered.indexOf("owner")).toBeLessThanOrEqual(1);
    expect(answered).toHaveLength(STRANGER_PENDING + 1);
    // The model saw the owner's request before the second stranger's.
    const order = fake.requests.map((r) => (fromOwner(r) ? "owner" : "stranger"));
    expect(order.indexOf("owner")).toBeLessThanOrEqual(1);
  });

  it("on the default four slots, one stranger turn runs at a time and the owner's starts at once", async () => {
    let running = 0;
    let most = 0;
    const fake = createFakeProvider({
      script: (request) => {
        if (fromOwner(request)) return { text: "在。" };
        running++;
        most = Math.max(most, running);
        // Hangs until the test ends: strangers keep their slot for good.
        return { hang: true };
      },
    });
    harness = createHarness({ providers: { fake } });
    const h = harness;
    const strangers = Array.from({ length: 12 }, (_, i) => h.agent.chat(strangerTurn(i)));
    const owner = await h.agent.chat(ownerRequest("主人的问题：在吗？"));
    expect(owner.reply).toBe("在。");
    expect(most).toBe(1);
    await h.agent.close();
    await Promise.all(strangers);
  }, 15_000); // with strangers ahead in one queue the owner's turn never comes: fail sooner
});
