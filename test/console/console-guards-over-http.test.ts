/**
 * Every console guard the Chromium test checks, again at the HTTP level against a real
 * `clawbox run`, so no guarantee depends on a browser being installed: the same shell and
 * login page for everyone (nothing of the box in them), a wrong secret refused, the
 * session token handed over only in the login answer's body (no cookie, not the secret),
 * the API 401 without the session header (a cookie or a query carrying the token is not
 * a session), state-changing requests refused with a non-JSON body, a foreign Origin
 * refused (its CORS preflight too), the page headers that stop framing and inline
 * script, and logout ending the session.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { consoleLogin, sessionTokenIn } from "../support/console-session.ts";
import { type RunningService, startService } from "../support/run-service.ts";

const TOKEN = "console-http-token-0123456789";

let home: string;
let box: RunningService;

beforeAll(async () => {
  home = mkdtempSync(join(tmpdir(), "clawbox-console-http-"));
  writeFileSync(
    join(home, "clawbox.json"),
    JSON.stringify({
      server: { token: TOKEN },
      models: {
        primary: "cloud",
        providers: {
          // Never called: only the model chain is changed through the console.
          cloud: {
            kind: "openai",
            baseUrl: "http://127.0.0.1:9/v1",
            model: "m",
            authProfiles: [{ id: "k", apiKey: "sk-test-not-called-1" }],
          },
        },
      },
    }),
  );
  box = await startService(["--port", "0"], { CLAWBOX_HOME: home, CLAWBOX_CONFIG: "" });
}, 90_000);

afterAll(async () => {
  box?.child.kill("SIGTERM");
  await box?.exited;
  if (home) rmSync(home, { recursive: true, force: true });
});

/** Posts the login form with the typed secret. */
async function login(secret: string): Promise<Response> {
  return fetch(`${box.url}/console/login`, {
    method: "POST",
    headers: { "Content-Type": "application/x-www-form-urlencoded" },
    body: `secret=${encodeURIComponent(secret)}`,
    redirect: "manual",
  });
}

const chain = JSON.stringify({ primary: "cloud", fallbacks: [] });

function postChain(headers: Record<string, string>, body = chain) {
  return fetch(`${box.url}/console/api/models/chain`, { method: "POST", headers, body });
}

describe("console guards over plain HTTP (real clawbox run, no browser)", () => {
  it("serves everyone the same shell and login page, with nothing of the box and headers that stop framing and inline script", async () => {
    for (const path of ["/", "/console/login"]) {
      const res = await fetch(`${box.url}${path}`);
      expect(res.status).toBe(200);
      const page = await res.text();
      expect(page).not.toContain("data-session");
      expect(page).not.toContain(TOKEN);
      expect(res.headers.get("set-cookie")).toBeNull();
      expect(res.headers.get("x-frame-options")).toBe("DENY");
      const csp = res.headers.get("content-security-policy") ?? "";
      expect(csp).toContain("script-src 'self'");
      expect(csp).toContain("frame-ancestors 'none'");
      expect(res.headers.get("cache-control")).toBe("no-store");
    }
    expect(await (await fetch(`${box.url}/console/login`)).text()).toContain('name="secret"');
    // The shell has no app in it: its script asks the API, which needs the session.
    expect(await (await fetch(`${box.url}/`)).text()).not.toContain("chat-input");
  });

  it("refuses a wrong secret; the right one hands a session token in the page body only, never a cookie, never the secret", async () => {
    const wrong = await login("not-the-token-at-all");
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get("set-cookie")).toBeNull();
    const wrongPage = await wrong.text();
    expect(wrongPage).toContain("Wrong secret");
    expect(wrongPage).not.toContain("data-session");
    const right = await login(TOKEN);
    expect(right.status).toBe(200);
    expect(right.headers.get("set-cookie")).toBeNull();
    expect(right.headers.get("location")).toBeNull();
    expect(right.headers.get("cache-control")).toBe("no-store");
    const page = await right.text();
    const token = sessionTokenIn(page);
    expect(token).toMatch(/^[A-Za-z0-9_-]{40,}$/);
    expect(page).not.toContain(TOKEN);
  });

  it("answers the API 401 without the session header, with a made-up one, and with the real token in a cookie or the query", async () => {
    const { headers } = await consoleLogin(box.url, TOKEN);
    const token = headers["X-Clawbox-Session"] ?? "";
    const anonymous: [string, Record<string, string>][] = [
      ["sessions", {}],
      ["sessions", { "X-Clawbox-Session": "made-up-session-token" }],
      ["sessions", { Cookie: `clawbox_console=${token}` }],
      ["sessions", { Cookie: `x-clawbox-session=${token}; session=${token}` }],
      [`sessions?session=${token}`, {}],
    ];
    for (const [path, extra] of anonymous) {
      const res = await fetch(`${box.url}/console/api/${path}`, { headers: extra });
      expect(res.status, JSON.stringify(extra)).toBe(401);
      const body = await res.text();
      expect(body).not.toMatch(/token|secret/i);
      expect(body).not.toContain(TOKEN);
    }
    expect((await fetch(`${box.url}/console/api/sessions`, { headers })).status).toBe(200);
  });

  it("refuses a state-changing request with a non-JSON body", async () => {
    const { headers } = await consoleLogin(box.url, TOKEN);
    for (const type of ["text/plain", "application/x-www-form-urlencoded"])
      expect((await postChain({ ...headers, "Content-Type": type })).status).toBe(415);
    expect((await postChain({ ...headers, "Content-Type": "application/json" })).status).toBe(200);
  });

  it("refuses a request from a foreign Origin even with a valid session, and its CORS preflight", async () => {
    const { headers } = await consoleLogin(box.url, TOKEN);
    const res = await postChain({
      ...headers,
      "Content-Type": "application/json",
      Origin: "http://127.0.0.1:28802",
    });
    expect(res.status).toBe(403);
    const preflight = await fetch(`${box.url}/console/api/workspace/USER.md`, {
      method: "OPTIONS",
      headers: {
        Origin: "http://127.0.0.1:28802",
        "Access-Control-Request-Method": "GET",
        "Access-Control-Request-Headers": "x-clawbox-session",
      },
    });
    expect(preflight.status).toBe(403);
    expect(preflight.headers.get("access-control-allow-origin")).toBeNull();
    expect(preflight.headers.get("access-control-allow-headers")).toBeNull();
  });

  it("logout ends the session: its token gets 401 afterwards", async () => {
    const session = await consoleLogin(box.url, TOKEN);
    expect((await session.get("sessions")).status).toBe(200);
    expect((await session.post("logout", {})).status).toBe(200);
    expect((await session.get("sessions")).status).toBe(401);
  });
});
