import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { startService } from "../support/run-service.ts";

describe('clawbox run with agent.directSessionMode "main"', () => {
  it("gives the token owner's default web chat the agent's main session", async () => {
    const home = mkdtempSync(join(tmpdir(), "clawbox-direct-main-"));
    const token = "owner-token-0123456789";
    writeFileSync(
      join(home, "clawbox.json"),
      JSON.stringify({ agent: { directSessionMode: "main" }, server: { token } }),
    );
    const service = await startService(["--port", "0"], { CLAWBOX_HOME: home });
    try {
      const res = await fetch(`${service.url}/api/chat`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
        body: JSON.stringify({ message: "hello" }),
      });
      // No model is configured: the reply is the plain missing-model error, in the main session.
      expect(await res.json()).toMatchObject({ sessionKey: "agent:main:main" });
    } finally {
      service.child.kill("SIGTERM");
      await service.exited;
    }
  }, 90_000);
});
