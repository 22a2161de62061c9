/**
 * Attacks 4 and 6 of issue 37 against the server's real HTTP stack. Behind a reverse
 * proxy every internet client arrives from 127.0.0.1: without `server.token` the box
 * refuses whatever carries a proxy's header (`Forwarded`, `X-Forwarded-For`, `Via`,
 * `X-Real-IP`) on every route but the webhooks. Bearer tokens: 2,000 guesses against
 * `/v1/models` used to pass in 0.13 s without a log line; now wrong tokens are logged
 * (one line per client per minute, never the token) and a client is answered 429 after
 * 10 of them, a right token included, while the owner on another client keeps working.
 */
import { describe, expect, it } from "vitest";
import type { ChatBackend } from "../../src/server/index.ts";
import { createLogger } from "../../src/system/index.ts";
import { serveApp } from "../support/serve-app.ts";

const TOKEN = "proxy-and-guess-token-0123456789";

function backend(calls: string[]): ChatBackend {
  return {
    async chat(request) {
      calls.push(request.text);
      return { sessionId: "s", sessionKey: request.sessionKey, reply: "ok", silent: false };
    },
    modelState: () => ({}),
  };
}

const chat = (base: string, headers: Record<string, string> = {}) =>
  fetch(`${base}/api/chat`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify({ message: "spend the owner's cloud budget" }),
  });

const PROXY_HEADERS: Record<string, string>[] = [
  { "x-forwarded-for": "203.0.113.7" },
  { forwarded: "for=203.0.113.7;proto=https" },
  { via: "1.1 caddy" },
  { "x-real-ip": "203.0.113.7" },
];

describe("requests through a reverse proxy on a box without server.token", () => {
  it("are refused on the API, /health, the console and /v1, and nothing runs", async () => {
    const calls: string[] = [];
    const { server, base } = serveApp({
      backend: backend(calls),
      openaiApi: { enabled: true },
    });
    try {
      for (const headers of PROXY_HEADERS) {
        const name = Object.keys(headers)[0];
        const res = await chat(base, headers);
        expect(res.status, name).toBe(403);
        expect(((await res.json()) as { error: { message: string } }).error.message).toContain(
          "came through a proxy",
        );
        for (const path of ["/health", "/console/", "/console/login", "/v1/models"]) {
          const other = await fetch(`${base}${path}`, { headers });
          expect(other.status, `${name} ${path}`).toBe(403);
        }
      }
      expect(calls).toEqual([]);
      // The same client without a proxy's header is the local stranger, as before.
      expect((await chat(base)).status).toBe(200);
    } finally {
      server.stop(true);
    }
  });

  it("still reach the webhooks (which verify their platform's signature)", async () => {
    const { server, base } = serveApp({
      backend: backend([]),
      channels: {
        status: () => [],
        webhook: (channel) => Promise.resolve(Response.json({ reached: channel })),
      },
    });
    try {
      const res = await fetch(`${base}/channels/qq/webhook`, {
        method: "POST",
        headers: { "x-forwarded-for": "203.0.113.7", host: "clawbox.example.com" },
        body: "{}",
      });
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ reached: "qq" });
    } finally {
      server.stop(true);
    }
  });

  it("with server.token set, need the token as usual", async () => {
    const calls: string[] = [];
    const { server, base } = serveApp({ backend: backend(calls), token: TOKEN });
    try {
      const proxied = { "x-forwarded-for": "203.0.113.7" };
      expect((await chat(base, proxied)).status).toBe(401);
      expect(calls).toEqual([]);
      expect((await chat(base, { ...proxied, authorization: `Bearer ${TOKEN}` })).status).toBe(200);
    } finally {
      server.stop(true);
    }
  });
});

describe("guessing the bearer token", () => {
  it("logs refused tokens (rate-limited, never the token) and answers 429 after 10 wrong ones, even to the right token", async () => {
    const lines: string[] = [];
    const { server, base } = serveApp({
      backend: backend([]),
      token: TOKEN,
      openaiApi: { enabled: true },
      logger: createLogger({ level: "debug", write: (line) => lines.push(line) }),
    });
    try {
      const models = (token: string) =>
        fetch(`${base}/v1/models`, { headers: { authorization: `Bearer ${token}` } });
      for (let i = 0; i < 10; i++)
        expect((await models(`guess-${i}-0123456789abcdef`)).status).toBe(401);
      const limited = await models("guess-10-0123456789abcdef");
      expect(limited.status).toBe(429);
      const wait = Number(limited.headers.get("retry-after"));
      expect(wait).toBeGreaterThan(0);
      expect(wait).toBeLessThanOrEqual(600);
      // A right guess now gets the same answer: the limit says nothing about the token.
      expect((await models(TOKEN)).status).toBe(429);
      // /api counts with /v1: the same client is locked there too.
      expect((await chat(base, { authorization: `Bearer ${TOKEN}` })).status).toBe(429);

      const refused = lines.filter((l) => l.includes("refused a wrong bearer token"));
      expect(refused).toHaveLength(1);
      expect(refused[0]).toContain("127.0.0.1");
      for (const line of lines) expect(line).not.toContain("guess-");
    } finally {
      server.stop(true);
    }
  });

  it("a guesser behind a proxy does not lock out the owner's own local requests", async () => {
    const { server, base } = serveApp({ backend: backend([]), token: TOKEN });
    try {
      const proxied = { "x-forwarded-for": "203.0.113.7" };
      for (let i = 0; i < 12; i++)
        await chat(base, { ...proxied, authorization: `Bearer guess-${i}-0123456789abcdef` });
      expect((await chat(base, { ...proxied, authorization: `Bearer ${TOKEN}` })).status).toBe(429);
      expect((await chat(base, { authorization: `Bearer ${TOKEN}` })).status).toBe(200);
    } finally {
      server.stop(true);
    }
  });
});
