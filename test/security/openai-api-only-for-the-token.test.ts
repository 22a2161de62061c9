/**
 * The OpenAI-compatible API (/v1) attacked on a real Bun server on 127.0.0.1: without
 * `server.token`, with a wrong one, or on a box that has none configured every request is
 * 401 (in OpenAI's error shape) and reaches no turn; a foreign Origin and a rebinding Host
 * are 403 as on the rest of the API; an unauthenticated body is refused before it is
 * read, an authenticated one is capped, a non-JSON body is 415; with the API off every
 * /v1 path is 404, token or not. A config that turns the API on without a token does not
 * load.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { ChatBackend, ChatBackendRequest } from "../../src/server/index.ts";
import { postStreamedBody } from "../support/post-streamed-body.ts";
import { runCli } from "../support/run-cli.ts";
import { serveApp } from "../support/serve-app.ts";

const TOKEN = "the-owners-token-0123456789";
const servers: ReturnType<typeof Bun.serve>[] = [];
afterEach(() => {
  for (const server of servers.splice(0)) server.stop(true);
});

function serve(options: { token?: string; enabled?: boolean } = {}) {
  const calls: ChatBackendRequest[] = [];
  const backend: ChatBackend = {
    modelState: () => ({}),
    async chat(request) {
      calls.push(request);
      return { sessionId: "s", sessionKey: request.sessionKey, reply: "ok", silent: false };
    },
  };
  const { server, base } = serveApp({
    backend,
    openaiApi: { enabled: options.enabled ?? true },
    ...(options.token ? { token: options.token } : {}),
  });
  servers.push(server);
  return { calls, base };
}

const CHAT = { model: "clawbox", messages: [{ role: "user", content: "run exec for me" }] };

function chat(base: string, headers: Record<string, string> = {}, body: unknown = CHAT) {
  return fetch(`${base}/v1/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  });
}

/** An OpenAI-shaped error body with these type and code. */
async function expectOpenAiError(res: Response, status: number, type: string, code: string) {
  expect(res.status).toBe(status);
  const body = (await res.json()) as { error: Record<string, unknown> };
  expect(Object.keys(body.error).sort()).toEqual(["code", "message", "param", "type"]);
  expect(body.error).toMatchObject({ type, code });
  expect(String(body.error.message).length).toBeGreaterThan(10);
  return body.error;
}

describe("the OpenAI-compatible API answers only the owner's token", () => {
  it("no token and a wrong token get 401 on every /v1 path, and no turn runs", async () => {
    const s = serve({ token: TOKEN });
    await expectOpenAiError(await chat(s.base), 401, "invalid_request_error", "invalid_api_key");
    for (const authorization of [
      "Bearer the-owners-token-0123456780",
      `Bearer ${TOKEN}x`,
      `Basic ${TOKEN}`,
      TOKEN,
      "Bearer ",
    ]) {
      const res = await chat(s.base, { authorization });
      expect(res.headers.get("www-authenticate"), authorization).toContain("Bearer");
      await expectOpenAiError(res, 401, "invalid_request_error", "invalid_api_key");
    }
    for (const path of ["/v1/models", "/v1/models/clawbox", "/v1/anything"]) {
      const res = await fetch(`${s.base}${path}`, { headers: { authorization: "Bearer wrong" } });
      await expectOpenAiError(res, 401, "invalid_request_error", "invalid_api_key");
    }
    expect(s.calls).toEqual([]);
    // The right token is an owner turn.
    const ok = await chat(s.base, { authorization: `Bearer ${TOKEN}` });
    expect(ok.status).toBe(200);
    expect(s.calls).toEqual([expect.objectContaining({ authenticatedOwner: true })]);
  });

  it("refuses everything when the box has no server.token, even on loopback", async () => {
    const s = serve();
    const error = await expectOpenAiError(
      await chat(s.base, { authorization: "Bearer anything-at-all-000000" }),
      401,
      "invalid_request_error",
      "invalid_api_key",
    );
    expect(error.message).toContain("server.token");
    const models = await fetch(`${s.base}/v1/models`);
    await expectOpenAiError(models, 401, "invalid_request_error", "invalid_api_key");
    expect(s.calls).toEqual([]);
  });

  it("refuses a foreign Origin and a rebinding Host with 403, with the token too", async () => {
    const s = serve({ token: TOKEN });
    const owner = { authorization: `Bearer ${TOKEN}` };
    const cross = await chat(s.base, { ...owner, origin: "https://evil.example" });
    await expectOpenAiError(cross, 403, "permission_error", "forbidden");
    const rebinding = await postStreamedBody(`${s.base}/v1/chat/completions`, {
      total: 64 * 1024,
      declare: true,
      type: "application/json",
      headers: { ...owner, host: "evil.example" },
    });
    expect(rebinding.status).toBe(403);
    expect(JSON.parse(rebinding.body)).toMatchObject({
      error: { type: "permission_error", code: "forbidden" },
    });
    expect(s.calls).toEqual([]);
  });

  it("answers an unauthenticated body 401 before reading it; caps an authenticated one", async () => {
    const s = serve({ token: TOKEN });
    const url = `${s.base}/v1/chat/completions`;
    const stalled = await postStreamedBody(url, {
      total: 64 * 1024 * 1024,
      stall: true,
      type: "application/json",
      headers: { authorization: "Bearer wrong-token-000000000000" },
    });
    expect(stalled.status).toBe(401);
    expect(stalled.bytesSent).toBeLessThan(32 * 1024 * 1024);
    const huge = await postStreamedBody(url, {
      total: 64 * 1024 * 1024,
      type: "application/json",
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    expect(huge.status).toBe(413);
    expect(JSON.parse(huge.body)).toMatchObject({ error: { code: "request_too_large" } });
    expect(huge.bytesSent).toBeLessThan(48 * 1024 * 1024);
    // Other /v1 routes keep the API's 256 KB cap.
    const models = await postStreamedBody(`${s.base}/v1/models`, {
      total: 8 * 1024 * 1024,
      type: "application/json",
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    expect(models.status).toBe(413);
    const plain = await fetch(url, {
      method: "POST",
      headers: { authorization: `Bearer ${TOKEN}`, "content-type": "text/plain" },
      body: JSON.stringify(CHAT),
    });
    await expectOpenAiError(plain, 415, "invalid_request_error", "unsupported_media_type");
    expect(s.calls).toEqual([]);
  }, 60_000);

  it("is 404 on every /v1 path when server.openaiApi is off, token or not", async () => {
    const s = serve({ token: TOKEN, enabled: false });
    const none: Record<string, string> = {};
    for (const headers of [none, { authorization: `Bearer ${TOKEN}` }]) {
      await expectOpenAiError(
        await chat(s.base, headers),
        404,
        "invalid_request_error",
        "not_found",
      );
      const models = await fetch(`${s.base}/v1/models`, { headers });
      await expectOpenAiError(models, 404, "invalid_request_error", "not_found");
    }
    expect(s.calls).toEqual([]);
    // The rest of the API is unchanged.
    expect((await fetch(`${s.base}/health`)).status).toBe(200);
  });

  it("a config that turns the API on without server.token is refused, naming both keys", async () => {
    const home = mkdtempSync(join(tmpdir(), "clawbox-openai-cfg-"));
    const file = join(home, "clawbox.json");
    writeFileSync(file, "{ server: { openaiApi: { enabled: true } } }");
    const refused = await runCli(["--home", home, "config", "check"]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(
      `${file}: server.token: required when server.openaiApi.enabled is true`,
    );
    writeFileSync(file, `{ server: { token: "${TOKEN}", openaiApi: { enabled: true } } }`);
    expect((await runCli(["--home", home, "config", "check"])).code).toBe(0);
  });
});
