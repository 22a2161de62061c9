/**
 * A stored channel secret goes only to its saved address (SECURITY.md), also when that
 * address answers with a redirect: the QQ token request (a POST whose body holds the
 * AppSecret; a 307 would re-send the body) and the WeCom app's gettoken (corpsecret in
 * the URL) refuse to follow it, so a second listener on another port sees nothing.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { probeQq, probeWeComApp } from "../../src/channels/probe-channel.ts";

let redirector: Server;
let catcher: Server;
let caught: string[] = [];
let redirectUrl = "";

const listen = (server: Server) =>
  new Promise<string>((resolve) =>
    server.listen(0, "127.0.0.1", () =>
      resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`),
    ),
  );

beforeAll(async () => {
  catcher = createServer((req, res) => {
    let body = "";
    req.on("data", (d) => {
      body += d;
    });
    req.on("end", () => {
      caught.push(`${req.method} ${req.url} ${body}`);
      res.end('{"access_token":"t","expires_in":"7200","errcode":0}');
    });
  });
  const catcherUrl = await listen(catcher);
  redirector = createServer((req, res) => {
    req.resume();
    res.writeHead(307, { location: `${catcherUrl}${req.url}` }).end();
  });
  redirectUrl = await listen(redirector);
});

afterAll(() => {
  redirector?.close();
  catcher?.close();
});

describe("channel secrets and redirects", () => {
  it("QQ: the AppSecret is not re-sent to where a 307 points", async () => {
    caught = [];
    const result = await probeQq({
      tokenUrl: `${redirectUrl}/app/getAppAccessToken`,
      appId: "1020304",
      clientSecret: "qq-stored-secret-123",
    } as Parameters<typeof probeQq>[0]);
    expect(result.ok).toBe(false);
    expect(caught).toEqual([]);
  });

  it("WeCom app: gettoken is not followed to another address", async () => {
    caught = [];
    const result = await probeWeComApp({
      apiBase: redirectUrl,
      corpId: "corp",
      corpSecret: "corp-stored-secret-456",
      agentId: 1000002,
    } as Parameters<typeof probeWeComApp>[0]);
    expect(result.ok).toBe(false);
    expect(caught).toEqual([]);
  });
});
