import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { type Fixture, makeFixture } from "../../test/fixtures/engine-fixture.ts";
import type { ToolDefinition } from "../providers/index.ts";
import { budgetCaps } from "./budget-planner.ts";
import { estimateTokens } from "./token-counter.ts";

let fx: Fixture;
afterEach(() => fx?.close());

const bigTool = (i: number): ToolDefinition => ({
  name: `tool_${i}`,
  description: `Tool number ${i}. ${"Does many useful things for the house. ".repeat(20)}`,
  parameters: {
    type: "object",
    properties: { target: { type: "string", description: "what to act on ".repeat(10) } },
  },
});

describe("budget planner", () => {
  it("caps the reply reserve at 25% of small windows and keeps the configured reserve for large ones", () => {
    expect(budgetCaps(4096, 16384).reserve).toBe(1024);
    expect(budgetCaps(200_000, 16384).reserve).toBe(16384);
  });

  it("degrades step by step so a 4096-token model still gets a prompt that fits", async () => {
    fx = makeFixture();
    writeFileSync(join(fx.paths.workspace, "SOUL.md"), "Be kind and brief. ".repeat(2000));
    writeFileSync(join(fx.paths.workspace, "MEMORY.md"), "- remembered fact\n".repeat(1500));
    const session = fx.session();
    const tools = Array.from({ length: 30 }, (_, i) => bigTool(i));
    const out = await fx.engine.assemble(
      {
        session,
        provider: fx.provider({ contextWindow: 4096 }),
        modelKind: "local",
        runKind: "interactive",
        tools,
        dynamic: { channel: "cli", chatType: "direct", now: Date.now() },
      },
      { role: "user", content: "turn on the hall light", timestamp: Date.now() },
    );
    const plan = out.report?.budget;
    expect(plan?.steps.some((s) => s.startsWith("bootstrap tightened"))).toBe(true);
    expect(plan?.steps.some((s) => s.startsWith("tool schemas cut"))).toBe(true);
    expect(out.tools.length).toBeLessThan(tools.length);
    expect(out.tools.length).toBeGreaterThan(0);
    const used =
      estimateTokens(out.systemPrompt) +
      out.tools.reduce((a, t) => a + estimateTokens(JSON.stringify(t)), 0) +
      out.messages.reduce(
        (a, m) =>
          a + estimateTokens(typeof m.content === "string" ? m.content : JSON.stringify(m.content)),
        0,
      );
    expect(used).toBeLessThanOrEqual(4096 - (plan?.reserve ?? 0));
    expect(out.messages[out.messages.length - 1]?.content as string).toContain(
      "turn on the hall light",
    );
  });

  it("leaves a 200k window undegraded", async () => {
    fx = makeFixture();
    const out = await fx.turn("hi", {
      modelKind: "cloud",
      provider: fx.provider({ contextWindow: 200_000 }),
    });
    expect(out.report?.budget.steps).toEqual([]);
    expect(out.report?.budget.contextWindow).toBe(200_000);
  });
});
