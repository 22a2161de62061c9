/**
 * Attack 6 of issue 23 against a real `clawbox run`: unauthenticated bodies the server
 * must not buffer. A 100 MB login form (declared or chunked) is refused with 413 after
 * at most a few KB; once an address is locked out, its login gets 429 while its body is
 * still being sent (the limit comes before the body is read); the console API answers an
 * unauthenticated client 401 before reading its body; every other route caps at 256 KB.
 */

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { postStreamedBody as post } from "../support/post-streamed-body.ts";
import { type RunningService, startService } from "../support/run-service.ts";

describe("bodies are capped before they are read (real clawbox run)", () => {
  let home: string;
  let box: RunningService;

  beforeAll(async () => {
    home = mkdtempSync(join(tmpdir(), "clawbox-bodies-"));
    box = await startService(["--port", "0"], { CLAWBOX_HOME: home, CLAWBOX_CONFIG: "" });
  }, 90_000);

  afterAll(async () => {
    box?.child.kill("SIGTERM");
    await box?.exited;
    if (home) rmSync(home, { recursive: true, force: true });
  });

  it("refuses a 100 MB login form, declared or chunked, after a few KB", async () => {
    const declared = await post(`${box.url}/console/login`, {
      total: 100 * 1024 * 1024,
      declare: true,
      everyMs: 20,
    });
    expect(declared.status).toBe(413);
    expect(declared.bytesSent).toBeLessThan(4 * 1024 * 1024);
    const chunked = await post(`${box.url}/console/login`, {
      total: 100 * 1024 * 1024,
      everyMs: 20,
    });
    expect(chunked.status).toBe(413);
    expect(chunked.bytesSent).toBeLessThan(4 * 1024 * 1024);
  }, 60_000);

  it("answers a locked-out address 429 before its body is even complete", async () => {
    for (let i = 0; i < 5; i++) {
      const wrong = await fetch(`${box.url}/console/login`, {
        method: "POST",
        headers: { "Content-Type": "application/x-www-form-urlencoded" },
        body: `secret=guess-${i}`,
        redirect: "manual",
      });
      expect(wrong.status).toBe(401);
    }
    const stalled = await post(`${box.url}/console/login`, {
      total: 1024 * 1024,
      declare: true,
      stall: true,
    });
    expect(stalled.status).toBe(429);
  }, 60_000);

  it("answers the console API 401 before reading an unauthenticated body", async () => {
    const stalled = await post(`${box.url}/console/api/chat`, {
      total: 64 * 1024 * 1024,
      stall: true,
      type: "application/json",
    });
    expect(stalled.status).toBe(401);
    expect(stalled.bytesSent).toBeLessThan(64 * 1024 * 1024);
  }, 60_000);

  it("caps the HTTP API and the webhooks at 256 KB, chunked too", async () => {
    for (const path of ["/api/chat", "/channels/qq/webhook", "/channels/wecom/app"]) {
      const big = await post(`${box.url}${path}`, {
        total: 8 * 1024 * 1024,
        type: "application/json",
        everyMs: 5,
      });
      expect({ path, status: big.status }).toEqual({ path, status: 413 });
      expect(big.bytesSent).toBeLessThan(4 * 1024 * 1024);
    }
  }, 60_000);
});
