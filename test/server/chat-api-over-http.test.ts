import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ChatBackend, type ChatBackendRequest, createApp } from "../../src/server/index.ts";
import { createSessionResolver } from "../../src/sessions/index.ts";
import { silentLogger } from "../../src/system/index.ts";

/** A backend that echoes in three streamed pieces and records what it was asked. */
function echoBackend(calls: ChatBackendRequest[]): ChatBackend {
  return {
    modelState: () => ({ local: "unloaded" }),
    async chat(request) {
      calls.push(request);
      for (const piece of ["echo: ", request.text.slice(0, 3), request.text.slice(3)]) {
        request.onEvent?.({ type: "message_update", event: { type: "text_delta", delta: piece } });
      }
      return {
        sessionId: "s1",
        sessionKey: request.sessionKey,
        reply: `echo: ${request.text}`,
        silent: false,
      };
    },
  };
}

const JSON_HEADERS = { "content-type": "application/json" };

function serve(token?: string, directSessionMode?: "per-peer" | "main") {
  const calls: ChatBackendRequest[] = [];
  const app = createApp({
    backend: echoBackend(calls),
    version: "9.9.9",
    startedAt: Date.now() - 1000,
    dbHealth: () => "ok",
    logger: silentLogger,
    sessions: createSessionResolver({
      id: "main",
      directSessionMode: directSessionMode ?? "per-peer",
      owners: ["cli"],
    }),
    ...(token ? { token } : {}),
  });
  const server = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: app.fetch });
  return { server, calls, base: `http://127.0.0.1:${server.port}` };
}

describe("HTTP API", () => {
  let s: ReturnType<typeof serve>;
  beforeAll(() => {
    s = serve();
  });
  afterAll(() => s.server.stop(true));

  it("GET /health reports version, uptime, db and model state", async () => {
    const res = await fetch(`${s.base}/health`);
    expect(res.status).toBe(200);
    const body = (await res.json()) as Record<string, unknown>;
    expect(body).toMatchObject({
      status: "ok",
      version: "9.9.9",
      db: { ok: true },
      models: { local: "unloaded" },
    });
    expect(body.uptimeMs).toBeGreaterThanOrEqual(1000);
  });

  it("POST /api/chat answers with JSON on the local web session, as a non-owner", async () => {
    const res = await fetch(`${s.base}/api/chat`, {
      method: "POST",
      body: JSON.stringify({ message: "hello" }),
      headers: JSON_HEADERS,
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({
      reply: "echo: hello",
      sessionKey: "agent:main:web:direct:local",
    });
    expect(s.calls.at(-1)).toMatchObject({
      channel: "web",
      chatType: "direct",
      text: "hello",
      senderId: "web:local",
    });
    expect(s.calls.at(-1)?.authenticatedOwner).toBeUndefined();
  });

  it("streams deltas and a final done event with SSE when asked", async () => {
    const res = await fetch(`${s.base}/api/chat`, {
      method: "POST",
      body: JSON.stringify({ message: "hello", stream: true, session: "kitchen" }),
      headers: JSON_HEADERS,
    });
    expect(res.headers.get("content-type")).toContain("text/event-stream");
    const text = await res.text();
    const events = text
      .split("\n\n")
      .filter(Boolean)
      .map((block) => {
        const event = /event: (\w+)/.exec(block)?.[1];
        const data = /data: (.*)/.exec(block)?.[1] ?? "null";
        return { event, data: JSON.parse(data) as Record<string, unknown> };
      });
    expect(
      events
        .filter((e) => e.event === "delta")
        .map((e) => e.data.text)
        .join(""),
    ).toBe("echo: hello");
    expect(events.at(-1)).toMatchObject({
      event: "done",
      data: { reply: "echo: hello", sessionKey: "agent:main:web:direct:kitchen" },
    });
  });

  it("rejects malformed and invalid bodies with a clear 400", async () => {
    const bad = await fetch(`${s.base}/api/chat`, {
      method: "POST",
      body: "{not json",
      headers: JSON_HEADERS,
    });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toEqual({
      error: { code: "HTTP_BAD_REQUEST", message: "body is not valid JSON" },
    });
    const empty = await fetch(`${s.base}/api/chat`, {
      method: "POST",
      body: JSON.stringify({ message: 5 }),
      headers: JSON_HEADERS,
    });
    expect(empty.status).toBe(400);
    expect(((await empty.json()) as { error: { message: string } }).error.message).toContain(
      "message:",
    );
  });

  it("refuses an oversized body with 413 and keeps serving", async () => {
    const res = await fetch(`${s.base}/api/chat`, {
      method: "POST",
      body: JSON.stringify({ message: "x".repeat(300_000) }),
      headers: JSON_HEADERS,
    });
    expect(res.status).toBe(413);
    expect(await res.json()).toMatchObject({ error: { code: "HTTP_BODY_TOO_LARGE" } });
    expect((await fetch(`${s.base}/health`)).status).toBe(200);
  });
});

describe("HTTP API with a token", () => {
  it("requires the bearer token on /api/* but not on /health", async () => {
    const s = serve("a-very-long-secret-token");
    try {
      const denied = await fetch(`${s.base}/api/chat`, {
        method: "POST",
        body: JSON.stringify({ message: "hi" }),
        headers: JSON_HEADERS,
      });
      expect(denied.status).toBe(401);
      expect(await denied.json()).toMatchObject({ error: { code: "HTTP_UNAUTHORIZED" } });
      // A bearer header with any other value (one character off, or a prefix) is refused too.
      for (const wrong of ["a-very-long-secret-tokeN", "a-very-long-secret", "x"]) {
        const guessed = await fetch(`${s.base}/api/chat`, {
          method: "POST",
          body: JSON.stringify({ message: "hi" }),
          headers: { ...JSON_HEADERS, authorization: `Bearer ${wrong}` },
        });
        expect(guessed.status).toBe(401);
        expect(await guessed.json()).toMatchObject({ error: { code: "HTTP_UNAUTHORIZED" } });
      }
      expect(s.calls).toHaveLength(0);
      const allowed = await fetch(`${s.base}/api/chat`, {
        method: "POST",
        body: JSON.stringify({ message: "hi" }),
        headers: { ...JSON_HEADERS, authorization: "Bearer a-very-long-secret-token" },
      });
      expect(allowed.status).toBe(200);
      expect(await allowed.json()).toMatchObject({ sessionKey: "agent:main:web:direct:owner" });
      expect(s.calls.at(-1)).toMatchObject({ senderId: "web:token", authenticatedOwner: true });
      expect((await fetch(`${s.base}/health`)).status).toBe(200);
    } finally {
      s.server.stop(true);
    }
  });

  it("with agent.directSessionMode \"main\" the owner's default chat is the main session, a tokenless client's is not", async () => {
    const owned = serve("a-very-long-secret-token", "main");
    const open = serve(undefined, "main");
    try {
      const res = await fetch(`${owned.base}/api/chat`, {
        method: "POST",
        body: JSON.stringify({ message: "hi" }),
        headers: { ...JSON_HEADERS, authorization: "Bearer a-very-long-secret-token" },
      });
      expect(await res.json()).toMatchObject({ sessionKey: "agent:main:main" });
      // A named session stays a web session; the mode only changes the default.
      const named = await fetch(`${owned.base}/api/chat`, {
        method: "POST",
        body: JSON.stringify({ message: "hi", session: "kitchen" }),
        headers: { ...JSON_HEADERS, authorization: "Bearer a-very-long-secret-token" },
      });
      expect(await named.json()).toMatchObject({ sessionKey: "agent:main:web:direct:kitchen" });
      // Without the token nobody is the owner: never the owner's main session.
      const stranger = await fetch(`${open.base}/api/chat`, {
        method: "POST",
        body: JSON.stringify({ message: "hi" }),
        headers: JSON_HEADERS,
      });
      expect(await stranger.json()).toMatchObject({ sessionKey: "agent:main:web:direct:local" });
    } finally {
      owned.server.stop(true);
      open.server.stop(true);
    }
  });
});
