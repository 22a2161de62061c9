import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { startService } from "../support/run-service.ts";

describe("clawbox run's listening line", () => {
  it("is printed once, with an IPv6 address in brackets, and the URL answers", async () => {
    const home = mkdtempSync(join(tmpdir(), "clawbox-ipv6-"));
    const service = await startService(["--host", "::1", "--port", "0"], {
      CLAWBOX_HOME: home,
    });
    try {
      expect(service.url).toMatch(/^http:\/\/\[::1\]:\d+$/);
      const health = await fetch(`${service.url}/health`);
      expect(health.status).toBe(200);
      expect(service.output().match(/listening on/g)).toHaveLength(1);
      // No model yet (npm start on a fresh clone): the output says where to get one.
      await service.waitFor("no chat model yet: pull one on the console's Models page");
      expect(service.output()).toMatch(/or run: clawbox models pull \S+/);
    } finally {
      service.child.kill("SIGTERM");
      await service.exited;
    }
  }, 90_000);
});
