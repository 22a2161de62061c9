/**
 * The fallback chain hands the private context to a cloud model only after a transient
 * or capacity error, and never when `models.localOnly` is set. Moving to a local model
 * is always allowed.
 */
import { afterEach, describe, expect, it } from "vitest";
import type { ErrorCode } from "../../src/errors/index.ts";
import { createFakeProvider } from "../../src/providers/index.ts";
import { createHarness, type Harness, ownerRequest } from "./agent-harness.ts";

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

async function run(code: ErrorCode, config: Record<string, unknown> = {}) {
  const local = createFakeProvider({
    id: "local",
    kind: "local",
    script: [{ error: { code, message: `local failed: ${code}` } }],
  });
  const cloud = createFakeProvider({
    id: "cloud",
    kind: "openai",
    script: [{ text: "from cloud" }],
  });
  harness = createHarness({
    providers: { local, cloud },
    config: { models: { primary: "local", fallbacks: ["cloud"], providers: {}, ...config } },
  });
  const result = await harness.agent.chat(ownerRequest("my door code is 4711"));
  await harness.close();
  harness = undefined;
  return { result, cloudCalls: cloud.requests.length };
}

describe("fallback to a cloud model", () => {
  it("happens on transient and capacity errors", async () => {
    for (const code of ["PROVIDER_TIMEOUT", "MODEL_CRASHED", "MODEL_LOAD_FAILED"] as const) {
      const { result, cloudCalls } = await run(code);
      expect(cloudCalls, code).toBe(1);
      expect(result.reply).toBe("from cloud");
    }
  });

  it("never happens after a bad answer or a refused key: the error is reported instead", async () => {
    for (const code of ["PROVIDER_BAD_RESPONSE", "PROVIDER_AUTH", "INTERNAL"] as const) {
      const { result, cloudCalls } = await run(code);
      expect(cloudCalls, code).toBe(0);
      expect(result.error?.code).toBe(code);
    }
  });

  it("never happens with models.localOnly, whatever the error", async () => {
    const { result, cloudCalls } = await run("PROVIDER_TIMEOUT", { localOnly: true });
    expect(cloudCalls).toBe(0);
    expect(result.error?.code).toBe("PROVIDER_TIMEOUT");
  });
});
