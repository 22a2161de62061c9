/**
 * docs/SECURITY.md, "Secrets": a value `config show` hides is hidden wherever it appears.
 * The attack on a real `clawbox run`: a cloud provider is configured with a custom header
 * (`headers: {"X-Custom": …}`, a short value that does not look like a key) and its
 * gateway answers HTTP 400 quoting that header, the Bearer key and an upstream
 * `?access_token=`. A tokenless stranger sends the message that triggers it. The header
 * value reaches neither the service's log lines (stdout, the console's Logs page) nor any
 * answer a client reads: the stranger's `/api/chat` JSON, the console chat's event stream
 * and the owner's `/v1` error; `[redacted]` stands where it was. A header value changed
 * in the file while the box runs (applied live) is hidden the same way.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  ECHO_TRIGGER,
  startGatewayEchoingHeaders,
} from "../fakes/openai-gateway-echoing-headers.ts";
import type { ScriptedServer } from "../fakes/openai-server.ts";
import { consoleLogin } from "../support/console-session.ts";
import { type RunningService, startService } from "../support/run-service.ts";

const HEADER_VALUE = "HDRSECRET3";
const PROVIDER_KEY = "sk-live-gateway-key-0123456789abcdef";
const UPSTREAM_TOKEN = "upstreamTok77";
const LIVE_HEADER_VALUE = "HDRLIVE44";
const SERVER_TOKEN = "server-token-for-the-owner-0123456789";
const SECRETS = [HEADER_VALUE, LIVE_HEADER_VALUE, PROVIDER_KEY, UPSTREAM_TOKEN, SERVER_TOKEN];

const expectHidden = (text: string) => {
  for (const secret of SECRETS) expect(text).not.toContain(secret);
  expect(text).toContain("[redacted]");
};

const configWith = (gatewayUrl: string, header: string, server: Record<string, unknown> = {}) =>
  JSON.stringify({
    server,
    log: { level: "debug" },
    models: {
      primary: "cloud",
      fallbacks: [],
      providers: {
        cloud: {
          kind: "openai",
          baseUrl: gatewayUrl,
          model: "fake",
          headers: { "X-Custom": header },
          authProfiles: [{ id: "k", apiKey: PROVIDER_KEY }],
        },
      },
    },
  });

/** Waits until the box has logged `text` more than `seen` times; returns the new count. */
async function waitForMore(box: RunningService, text: string, seen: number): Promise<number> {
  const count = () => box.output().split(text).length - 1;
  for (let i = 0; i < 200 && count() <= seen; i++) await new Promise((r) => setTimeout(r, 50));
  expect(count()).toBeGreaterThan(seen);
  return count();
}

/** What the tokenless stranger does: `curl /api/chat -d '{"message":"ECHOERR400"}'`. */
const strangerChat = (url: string) =>
  fetch(`${url}/api/chat`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ message: ECHO_TRIGGER }),
  });

describe("a provider error quoting a custom header (real clawbox run)", () => {
  let home: string;
  let gateway: ScriptedServer;
  let box: RunningService;

  beforeAll(async () => {
    home = mkdtempSync(join(tmpdir(), "clawbox-header-echo-"));
    gateway = await startGatewayEchoingHeaders({ upstreamToken: UPSTREAM_TOKEN });
    writeFileSync(join(home, "clawbox.json"), configWith(gateway.url, HEADER_VALUE));
    box = await startService(["--port", "0"], { CLAWBOX_HOME: home, CLAWBOX_CONFIG: "" });
  }, 90_000);

  afterAll(async () => {
    box?.child.kill("SIGTERM");
    await box?.exited;
    await gateway?.close();
    if (home) rmSync(home, { recursive: true, force: true });
  });

  it("the gateway really received the header and quoted it back", async () => {
    const probe = await fetch(`${gateway.url}/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json", "X-Custom": HEADER_VALUE },
      body: JSON.stringify({ model: "fake", messages: [{ role: "user", content: ECHO_TRIGGER }] }),
    });
    expect(probe.status).toBe(400);
    expect(await probe.text()).toContain(`hdr=${HEADER_VALUE}`);
  });

  it("hides the header value from the stranger's answer and from the log lines", async () => {
    const res = await strangerChat(box.url);
    const answer = await res.text();
    expect(res.status).toBe(502);
    // The provider was called with the header and the turn failed on its 400.
    const sent = gateway.requests.at(-1);
    expect(sent?.headers["x-custom"]).toBe(HEADER_VALUE);
    const body = JSON.parse(answer) as { message?: { errorMessage?: string } };
    expect(body.message?.errorMessage).toContain("hdr=[redacted]");
    expectHidden(answer);

    await box.waitFor("run failed");
    const runFailed = box
      .output()
      .split("\n")
      .filter((line) => line.includes("run failed"));
    expect(runFailed.join("\n")).toContain("hdr=[redacted]");
    expectHidden(box.output());
  });

  it("hides it from the console chat stream and the Logs page", async () => {
    const secret = readFileSync(join(home, "console-secret"), "utf8").trim();
    const session = await consoleLogin(box.url, secret);
    const stream = await (await session.post("chat", { message: ECHO_TRIGGER })).text();
    expect(stream).toContain("hdr=[redacted]");
    expectHidden(stream);

    const logs = await (await session.get("logs?level=debug")).text();
    expect(logs).toContain("run failed");
    expectHidden(logs);
  });

  it("hides a header value changed while the box runs", async () => {
    writeFileSync(join(home, "clawbox.json"), configWith(gateway.url, LIVE_HEADER_VALUE));
    await box.waitFor("config change applied");
    const failures = box.output().split("run failed").length - 1;
    const answer = await (await strangerChat(box.url)).text();
    expect(gateway.requests.at(-1)?.headers["x-custom"]).toBe(LIVE_HEADER_VALUE);
    expect(answer).toContain("hdr=[redacted]");
    expectHidden(answer);
    await waitForMore(box, "run failed", failures);
    expectHidden(box.output());
  });
});

describe("the same error through the OpenAI-compatible API (real clawbox run)", () => {
  it("answers the owner's /v1 request with the error and no secret", async () => {
    const home = mkdtempSync(join(tmpdir(), "clawbox-header-echo-v1-"));
    const gateway = await startGatewayEchoingHeaders({ upstreamToken: UPSTREAM_TOKEN });
    writeFileSync(
      join(home, "clawbox.json"),
      configWith(gateway.url, HEADER_VALUE, { token: SERVER_TOKEN, openaiApi: { enabled: true } }),
    );
    const box = await startService(["--port", "0"], { CLAWBOX_HOME: home, CLAWBOX_CONFIG: "" });
    try {
      const v1 = await fetch(`${box.url}/v1/chat/completions`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${SERVER_TOKEN}` },
        body: JSON.stringify({
          model: "clawbox",
          messages: [{ role: "user", content: ECHO_TRIGGER }],
        }),
      });
      const text = await v1.text();
      expect(v1.status).toBe(502);
      expect(gateway.requests.at(-1)?.headers["x-custom"]).toBe(HEADER_VALUE);
      for (const secret of SECRETS) expect(text).not.toContain(secret);
      await box.waitFor("run failed");
      expectHidden(box.output());
    } finally {
      box.child.kill("SIGTERM");
      await box.exited;
      await gateway.close();
      rmSync(home, { recursive: true, force: true });
    }
  }, 90_000);
});
