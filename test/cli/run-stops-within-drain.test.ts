import { afterEach, describe, expect, it } from "vitest";
import type { ScriptedServer } from "../fakes/openai-server.ts";
import { startService } from "../support/run-service.ts";
import {
  PARTIAL,
  slowCloudHome,
  storedAssistantMessages,
  textOf,
} from "../support/slow-cloud-home.ts";

let server: ScriptedServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const within = <T>(promise: Promise<T>, ms: number, what: string): Promise<T> =>
  Promise.race([
    promise,
    new Promise<T>((_, reject) =>
      setTimeout(() => reject(new Error(`${what} took over ${ms} ms`)), ms),
    ),
  ]);

async function serviceWithRunningReply(drainMs: number) {
  const setup = await slowCloudHome("clawbox-drain-", { server: { drainMs } });
  server = setup.server;
  const fake = setup.server;
  const service = await startService(["--port", "0"], { CLAWBOX_HOME: setup.home });
  // A reply that never finishes on its own.
  void fetch(`${service.url}/api/chat`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ message: "tell me a story" }),
  }).catch(() => undefined);
  for (let i = 0; i < 400 && fake.requests.length === 0; i++) {
    await new Promise((r) => setTimeout(r, 50));
  }
  expect(fake.requests).toHaveLength(1);
  await new Promise((r) => setTimeout(r, 300)); // the partial words stream in
  return { home: setup.home, service };
}

describe("clawbox run stopping while a reply runs", () => {
  it("drains for server.drainMs, then aborts the reply, keeps its partial text and exits 0", async () => {
    const { home, service } = await serviceWithRunningReply(500);
    service.child.kill("SIGTERM");
    const exit = await within(service.exited, 20_000, "stopping");
    expect(exit.code).toBe(0);
    const [reply] = storedAssistantMessages(home);
    expect(reply?.stopReason).toBe("aborted");
    expect(textOf(reply as never)).toContain(PARTIAL.trim());
  }, 60_000);

  it("a second SIGINT skips a long drain", async () => {
    const { home, service } = await serviceWithRunningReply(600_000);
    service.child.kill("SIGINT");
    await service.waitFor("stopping");
    // Later than npm's echo of the same Ctrl-C (graceful-stop's echoMs): a second Ctrl-C.
    await new Promise((r) => setTimeout(r, 700));
    service.child.kill("SIGINT");
    const exit = await within(service.exited, 20_000, "stopping after the second SIGINT");
    expect(exit.code).toBe(0);
    const [reply] = storedAssistantMessages(home);
    expect(reply?.stopReason).toBe("aborted");
    expect(textOf(reply as never)).toContain(PARTIAL.trim());
  }, 60_000);
});
