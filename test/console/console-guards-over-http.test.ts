/**
 * Every console guard the Chromium test checks, again at the HTTP level against a real
 * `clawbox run`, so no guarantee depends on a browser being installed: the login page
 * for anyone without a session (nothing of the app, no CSRF token), a wrong secret
 * refused, the session cookie HttpOnly and SameSite=Strict (and not the secret), the API
 * 401 without a session, state-changing requests refused without the CSRF header, with
 * a wrong one or with a non-JSON body, a foreign Origin refused, the page headers that
 * stop framing and inline script, and logout ending the session.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
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

/** Logs in with the typed secret; returns the session cookie ("name=value"). */
async function login(secret: string): Promise<Response> {
  return fetch(`${box.url}/console/login`, {
    method: "POST",
    headers: { "Content-Type": "application/x-www-form-urlencoded" },
    body: `secret=${encodeURIComponent(secret)}`,
    redirect: "manual",
  });
}

async function session(): Promise<{ cookie: string; csrf: string }> {
  const res = await login(TOKEN);
  expect(res.status).toBe(303);
  const cookie = (res.headers.get("set-cookie") ?? "").split(";")[0] ?? "";
  const page = await (await fetch(`${box.url}/`, { headers: { Cookie: cookie } })).text();
  const csrf = /data-csrf="([^"]+)"/.exec(page)?.[1] ?? "";
  expect(csrf.length).toBeGreaterThan(20);
  return { cookie, csrf };
}

const chain = JSON.stringify({ primary: "cloud", fallbacks: [] });

function postChain(headers: Record<string, string>, body = chain) {
  return fetch(`${box.url}/console/api/models/chain`, { method: "POST", headers, body });
}

describe("console guards over plain HTTP (real clawbox run, no browser)", () => {
  it("shows only the login page without a session, with headers that stop framing and inline script", async () => {
    const res = await fetch(`${box.url}/`);
    expect(res.status).toBe(200);
    const page = await res.text();
    expect(page).toContain('name="secret"');
    expect(page).not.toContain("data-csrf");
    expect(page).not.toContain("chat-input");
    expect(res.headers.get("x-frame-options")).toBe("DENY");
    const csp = res.headers.get("content-security-policy") ?? "";
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(res.headers.get("cache-control")).toBe("no-store");
  });

  it("refuses a wrong secret; the right one gives an HttpOnly, SameSite=Strict cookie that is not the secret", async () => {
    const wrong = await login("not-the-token-at-all");
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get("set-cookie")).toBeNull();
    expect(await wrong.text()).toContain("Wrong secret");
    const right = await login(TOKEN);
    expect(right.status).toBe(303);
    const cookie = right.headers.get("set-cookie") ?? "";
    expect(cookie).toMatch(/^clawbox_console=[A-Za-z0-9_-]{40,};/);
    expect(cookie).toMatch(/;\s*HttpOnly/i);
    expect(cookie).toMatch(/;\s*SameSite=Strict/i);
    expect(cookie).not.toContain(TOKEN);
  });

  it("answers the API 401 without a session or with a made-up one, and says nothing of the secret", async () => {
    const anonymous: Record<string, string>[] = [
      {},
      { Cookie: "clawbox_console=made-up-session-id" },
    ];
    for (const headers of anonymous) {
      const res = await fetch(`${box.url}/console/api/sessions`, { headers });
      expect(res.status).toBe(401);
      const body = await res.text();
      expect(body).not.toMatch(/token|secret/i);
      expect(body).not.toContain(TOKEN);
    }
  });

  it("refuses a state-changing request without the CSRF header, with a wrong one, or with a non-JSON body", async () => {
    const { cookie, csrf } = await session();
    const json = { Cookie: cookie, "Content-Type": "application/json" };
    const noCsrf = await postChain(json);
    expect(noCsrf.status).toBe(403);
    expect((await noCsrf.json()) as unknown).toMatchObject({ error: { code: "FORBIDDEN" } });
    expect((await postChain({ ...json, "X-Clawbox-CSRF": `${csrf}x` })).status).toBe(403);
    expect(
      (await postChain({ Cookie: cookie, "Content-Type": "text/plain", "X-Clawbox-CSRF": csrf }))
        .status,
    ).toBe(415);
    expect(
      (
        await postChain({
          Cookie: cookie,
          "Content-Type": "application/x-www-form-urlencoded",
          "X-Clawbox-CSRF": csrf,
        })
      ).status,
    ).toBe(415);
    // Another session's CSRF token does not fit this one.
    const other = await session();
    expect((await postChain({ ...json, "X-Clawbox-CSRF": other.csrf })).status).toBe(403);
    expect((await postChain({ ...json, "X-Clawbox-CSRF": csrf })).status).toBe(200);
  });

  it("refuses a request from a foreign Origin even with a valid session and CSRF token", async () => {
    const { cookie, csrf } = await session();
    const res = await postChain({
      Cookie: cookie,
      "Content-Type": "application/json",
      "X-Clawbox-CSRF": csrf,
      Origin: "https://evil.example",
    });
    expect(res.status).toBe(403);
  });

  it("logout ends the session: its cookie gets 401 afterwards", async () => {
    const { cookie, csrf } = await session();
    const ok = await fetch(`${box.url}/console/api/sessions`, { headers: { Cookie: cookie } });
    expect(ok.status).toBe(200);
    const out = await fetch(`${box.url}/console/api/logout`, {
      method: "POST",
      headers: { Cookie: cookie, "Content-Type": "application/json", "X-Clawbox-CSRF": csrf },
      body: "{}",
    });
    expect(out.status).toBe(200);
    const after = await fetch(`${box.url}/console/api/sessions`, { headers: { Cookie: cookie } });
    expect(after.status).toBe(401);
  });
});
