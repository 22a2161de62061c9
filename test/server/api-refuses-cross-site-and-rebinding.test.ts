/**
 * The HTTP API on loopback against the attacks a web page can mount: a `text/plain` POST
 * (no CORS preflight), a foreign Origin, a DNS-rebinding Host, session keys that reach
 * outside the web channel or are malformed. Also the API details a client relies on:
 * JSON errors with their codes, 405, blank messages, the idle timeout switched off for a
 * long turn, and SSE keep-alive comments. Real Bun server on 127.0.0.1, raw sockets where
 * fetch would rewrite the Host header.
 */
import { connect } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import type { ChatBackend, ChatBackendRequest } from "../../src/server/index.ts";
import { serveApp } from "../support/serve-app.ts";

const servers: ReturnType<typeof Bun.serve>[] = [];
afterEach(() => {
  for (const server of servers.splice(0)) server.stop(true);
});

function backend(calls: ChatBackendRequest[], delayMs = 0): ChatBackend {
  return {
    modelState: () => ({}),
    async chat(request) {
      calls.push(request);
      if (delayMs) await new Promise((resolve) => setTimeout(resolve, delayMs));
      return { sessionId: "s", sessionKey: request.sessionKey, reply: "ok", silent: false };
    },
  };
}

function serve(
  options: {
    token?: string;
    allowedHosts?: string[];
    delayMs?: number;
    idleTimeout?: number;
    keepAliveMs?: number;
  } = {},
) {
  const calls: ChatBackendRequest[] = [];
  const { server } = serveApp(
    {
      backend: backend(calls, options.delayMs),
      allowedHosts: options.allowedHosts ?? [],
      ...(options.token ? { token: options.token } : {}),
      ...(options.keepAliveMs ? { keepAliveMs: options.keepAliveMs } : {}),
    },
    options.idleTimeout,
  );
  servers.push(server);
  return { calls, port: Number(server.port), base: `http://127.0.0.1:${server.port}` };
}

/** One raw HTTP/1.1 request (fetch cannot send a foreign Host); returns status and body. */
function raw(
  port: number,
  headers: Record<string, string>,
  body = '{"message":"hi"}',
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1");
    let data = "";
    socket.on("data", (chunk) => {
      data += chunk.toString("utf8");
    });
    socket.on("error", reject);
    socket.on("end", () => {
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(data)?.[1] ?? 0);
      resolve({ status, body: data.slice(data.indexOf("\r\n\r\n") + 4) });
    });
    const lines = [
      "POST /api/chat HTTP/1.1",
      ...Object.entries({
        "content-type": "application/json",
        "content-length": String(Buffer.byteLength(body)),
        connection: "close",
        ...headers,
      }).map(([k, v]) => `${k}: ${v}`),
      "",
      body,
    ];
    socket.write(lines.join("\r\n"));
  });
}

const post = (base: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(`${base}/api/chat`, {
    method: "POST",
    body: typeof body === "string" ? body : JSON.stringify(body),
    headers: { "content-type": "application/json", ...headers },
  });

describe("cross-site requests and DNS rebinding", () => {
  it("a text/plain or form body gets 415 and never reaches the agent", async () => {
    const s = serve();
    for (const type of ["text/plain", "application/x-www-form-urlencoded", "multipart/form-data"]) {
      const res = await post(s.base, { message: "hi" }, { "content-type": type });
      expect(res.status).toBe(415);
      expect(await res.json()).toMatchObject({ error: { code: "HTTP_UNSUPPORTED_MEDIA_TYPE" } });
    }
    const none = await fetch(`${s.base}/api/chat`, { method: "POST", body: new Uint8Array([1]) });
    expect(none.status).toBe(415);
    expect(s.calls).toHaveLength(0);
    expect((await post(s.base, { message: "hi" })).status).toBe(200);
  });

  it("a foreign Origin gets 403; the box's own origin and no origin pass", async () => {
    const s = serve();
    for (const origin of [
      "https://evil.example",
      "http://127.0.0.1.evil.example",
      "null",
      "http://localhost:1", // another local port is another origin
    ]) {
      const res = await post(s.base, { message: "hi" }, { origin });
      expect(res.status, origin).toBe(403);
      expect(await res.json()).toMatchObject({ error: { code: "HTTP_FORBIDDEN" } });
    }
    expect(s.calls).toHaveLength(0);
    expect((await post(s.base, { message: "hi" }, { origin: s.base })).status).toBe(200);
    expect((await post(s.base, { message: "hi" })).status).toBe(200);
  });

  it("a rebinding Host gets 403 on the API and on /health; loopback names and configured names pass", async () => {
    const s = serve({ allowedHosts: ["clawbox.local"] });
    for (const host of ["evil.example", `evil.example:${s.port}`, "127.0.0.1.nip.io"]) {
      const res = await raw(s.port, { host });
      expect(res.status, host).toBe(403);
      expect(JSON.parse(res.body)).toMatchObject({ error: { code: "HTTP_FORBIDDEN" } });
    }
    const health = await new Promise<number>((resolve) => {
      const socket = connect(s.port, "127.0.0.1");
      let data = "";
      socket.on("data", (c) => {
        data += c.toString();
      });
      socket.on("end", () => resolve(Number(/HTTP\/1\.1 (\d+)/.exec(data)?.[1])));
      socket.write("GET /health HTTP/1.1\r\nhost: evil.example\r\nconnection: close\r\n\r\n");
    });
    expect(health).toBe(403);
    expect(s.calls).toHaveLength(0);
    for (const host of [`127.0.0.1:${s.port}`, `localhost:${s.port}`, "clawbox.local", "[::1]"]) {
      expect((await raw(s.port, { host })).status, host).toBe(200);
    }
    expect(
      (await raw(s.port, { host: "clawbox.local", origin: "https://clawbox.local" })).status,
    ).toBe(200);
  });
});

describe("session keys", () => {
  it("a web client stays in the web channel's namespace unless it has the owner's token", async () => {
    const s = serve();
    const owners = ["agent:main:cli:direct:owner", "agent:main:qq:direct:OWNER"];
    for (const session of owners) {
      const res = await post(s.base, { message: "hi", session });
      expect(res.status, session).toBe(403);
    }
    const web = await post(s.base, { message: "hi", session: "agent:main:web:direct:kitchen" });
    expect(web.status).toBe(200);
    expect(s.calls.map((c) => c.sessionKey)).toEqual(["agent:main:web:direct:kitchen"]);

    const o = serve({ token: "owner-token-0123456789" });
    const res = await post(
      o.base,
      { message: "hi", session: "agent:main:cli:direct:owner" },
      { authorization: "Bearer owner-token-0123456789" },
    );
    expect(res.status).toBe(200);
    expect(o.calls[0]).toMatchObject({
      sessionKey: "agent:main:cli:direct:owner",
      authenticatedOwner: true,
    });
  });

  it("malformed keys are refused with 400, also for the owner", async () => {
    const s = serve({ token: "owner-token-0123456789" });
    const auth = { authorization: "Bearer owner-token-0123456789" };
    for (const session of [
      ":",
      "a\u0000b",
      "../etc",
      "..",
      "agent:main:web:direct:../x",
      "agent::web:direct:x",
      "agent:main:web:direct:a/b",
      "kitchen\n",
      "x".repeat(65),
    ]) {
      const res = await post(s.base, { message: "hi", session }, auth);
      expect(res.status, JSON.stringify(session)).toBe(400);
    }
    expect(s.calls).toHaveLength(0);
  });
});

describe("API details", () => {
  it("401 is JSON; GET /api/chat is 405; a blank message is 400", async () => {
    const t = serve({ token: "owner-token-0123456789" });
    const denied = await post(t.base, { message: "hi" }, { authorization: "Bearer wrong" });
    expect(denied.status).toBe(401);
    expect(denied.headers.get("content-type")).toContain("application/json");
    expect(await denied.json()).toMatchObject({ error: { code: "HTTP_UNAUTHORIZED" } });

    const s = serve();
    const get = await fetch(`${s.base}/api/chat`);
    expect(get.status).toBe(405);
    expect(get.headers.get("allow")).toBe("POST");
    expect(await get.json()).toMatchObject({ error: { code: "HTTP_METHOD_NOT_ALLOWED" } });
    const blank = await post(s.base, { message: " \n\t " });
    expect(blank.status).toBe(400);
    expect(s.calls).toHaveLength(0);
  });

  it("a streamed turn quieter than the server's idle timeout still gets its answer", async () => {
    // Bun closes a response that sends nothing for `idleTimeout` seconds (checked every
    // few seconds); keep-alive comments are set far apart here so only the switched-off
    // timeout can keep the stream open. A raw socket shows what the server really sends.
    const s = serve({ idleTimeout: 2, delayMs: 5000, keepAliveMs: 60_000 });
    const res = await raw(
      s.port,
      { host: `127.0.0.1:${s.port}` },
      JSON.stringify({ message: "slow", stream: true }),
    );
    expect(res.status).toBe(200);
    expect(res.body).toContain("event: done");
    expect(s.calls[0]?.signal?.aborted).toBe(false);
  }, 15_000);

  it("a quiet stream carries keep-alive comments before the done event", async () => {
    const s = serve({ delayMs: 400, keepAliveMs: 50 });
    const res = await post(s.base, { message: "hi", stream: true });
    const text = await res.text();
    expect(text).toContain(": keep-alive\n\n");
    expect(text.indexOf(": keep-alive")).toBeLessThan(text.indexOf("event: done"));
  });
});
