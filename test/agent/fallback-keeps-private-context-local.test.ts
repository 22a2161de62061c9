/**
 * The fallback chain hands the private context to a cloud model only after a transient
 * or capacity error, and never when `models.localOnly` is set. Moving to a local model
 * is always allowed.
 */
import { afterEach, describe, expect, it } from "vitest";
import type { ErrorCode } from "../../src/errors/index.ts";
import { createProvider } from "../../src/providers/index.ts";
import { createFakeProvider } from "../fakes/fake-provider.ts";
import { openaiStatus, startFakeOpenAI } from "../fakes/openai-server.ts";
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

  it("never happens while a refused key cools down: the next turn does not fall back either (issue 23, attack 8)", async () => {
    const server = await startFakeOpenAI();
    try {
      server.enqueue(openaiStatus(401, "Incorrect API key provided"));
      const backup = createFakeProvider({ id: "backup", kind: "openai", script: [{ text: "x" }] });
      harness = createHarness({
        config: {
          models: {
            primary: "cloud",
            fallbacks: ["backup"],
            providers: {
              cloud: {
                kind: "openai",
                baseUrl: server.url,
                model: "m",
                authProfiles: [{ id: "k1", apiKey: "sk-refused-0000000000" }],
              },
              backup: { kind: "openai", baseUrl: "http://127.0.0.1:9", model: "m" },
            },
          },
        },
        providers: (id) => {
          if (id === "backup") return backup;
          const entry = harness?.config.models.providers[id];
          return entry ? createProvider(id, entry) : undefined;
        },
      });
      const first = await harness.agent.chat(ownerRequest("my door code is 4711"));
      expect(first.error?.code).toBe("PROVIDER_AUTH");
      // The key now cools down for 30 minutes: the next turn must not move to the backup.
      const next = await harness.agent.chat(ownerRequest("and the alarm code?"));
      expect(next.error?.code).toBe("PROVIDER_AUTH");
      expect(backup.requests).toHaveLength(0);
      expect(server.requests).toHaveLength(1);
    } finally {
      await server.close();
    }
  });
});
