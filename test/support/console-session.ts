/**
 * Logs in to the console of a running box over plain HTTP, as the login page does, and
 * calls its API with what the login gave: the one place tests know how a console
 * request proves its session.
 */
import { expect } from "vitest";

export interface ConsoleSession {
  /** The headers that make a console API request this session's. */
  headers: Record<string, string>;
  get(path: string): Promise<Response>;
  post(path: string, body: unknown, headers?: Record<string, string>): Promise<Response>;
}

/** The session token a login's answer hands to its page's script ("" when none). */
export const sessionTokenIn = (page: string): string =>
  /data-session="([^"]+)"/.exec(page)?.[1] ?? "";

/** Logs in with the typed secret; fails the test when the login does not succeed. */
export async function consoleLogin(url: string, secret: string): Promise<ConsoleSession> {
  const res = await fetch(`${url}/console/login`, {
    method: "POST",
    headers: { "Content-Type": "application/x-www-form-urlencoded" },
    body: `secret=${encodeURIComponent(secret)}`,
    redirect: "manual",
  });
  expect(res.status).toBe(200);
  expect(res.headers.get("set-cookie")).toBeNull();
  const token = sessionTokenIn(await res.text());
  expect(token.length).toBeGreaterThan(40);
  const headers = { "X-Clawbox-Session": token };
  return {
    headers,
    get: (path) => fetch(`${url}/console/api/${path}`, { headers }),
    post: (path, body, extra = {}) =>
      fetch(`${url}/console/api/${path}`, {
        method: "POST",
        headers: { ...headers, "Content-Type": "application/json", ...extra },
        body: JSON.stringify(body),
      }),
  };
}

/**
 * A fresh one-time login link from `clawbox console url` for the box on `base` (the
 * service prints none unless its stdout is a terminal: docs/SECURITY.md).
 */
export async function consoleUrl(home: string, base: string): Promise<string> {
  const { spawnCli } = await import("./spawn-cli.ts");
  const port = new URL(base).port;
  const run = await spawnCli(["console", "url", "--port", port], {
    CLAWBOX_HOME: home,
    CLAWBOX_CONFIG: "",
  });
  expect(run.code).toBe(0);
  return run.stdout.trim();
}
