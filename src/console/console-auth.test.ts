import { describe, expect, it } from "vitest";
import { ConsoleAuth } from "./console-auth.ts";

const TOKEN = "correct-horse-battery-staple";

describe("console auth", () => {
  it("gives a session and a CSRF token only for the right token", () => {
    const auth = new ConsoleAuth(TOKEN);
    expect(auth.open).toBe(false);
    expect(auth.login("wrong-token-000000", "10.0.0.2")).toEqual({ ok: false, limited: false });
    const ok = auth.login(TOKEN, "10.0.0.2");
    expect(ok.ok).toBe(true);
    if (!ok.ok) return;
    const csrf = auth.csrfFor(ok.sessionId);
    expect(csrf).toMatch(/^[A-Za-z0-9_-]{40,}$/);
    expect(auth.csrfFor("made-up-session")).toBeUndefined();
    expect(auth.csrfFor(undefined)).toBeUndefined();
    expect(auth.csrfMatches(csrf ?? "", csrf)).toBe(true);
    expect(auth.csrfMatches(csrf ?? "", "other")).toBe(false);
    expect(auth.csrfMatches(csrf ?? "", undefined)).toBe(false);
    auth.logout(ok.sessionId);
    expect(auth.csrfFor(ok.sessionId)).toBeUndefined();
  });

  it("locks an address out after five failures, even for the right token, until the window passes", () => {
    let now = 1_000_000;
    const auth = new ConsoleAuth(TOKEN, () => now);
    for (let i = 0; i < 5; i++)
      expect(auth.login(`guess-${i}-xxxxxxxxxx`, "10.0.0.9").ok).toBe(false);
    const blocked = auth.login(TOKEN, "10.0.0.9");
    expect(blocked).toMatchObject({ ok: false, limited: true });
    expect(auth.login(TOKEN, "10.0.0.10").ok).toBe(true);
    now += 10 * 60 * 1000 + 1;
    expect(auth.login(TOKEN, "10.0.0.9").ok).toBe(true);
  });

  it("expires sessions", () => {
    let now = 0;
    const auth = new ConsoleAuth(TOKEN, () => now);
    const ok = auth.login(TOKEN, "a");
    if (!ok.ok) throw new Error("login failed");
    now += 13 * 60 * 60 * 1000;
    expect(auth.csrfFor(ok.sessionId)).toBeUndefined();
  });

  it("is open without a token", () => {
    const auth = new ConsoleAuth(undefined);
    expect(auth.open).toBe(true);
    expect(auth.csrfFor(undefined)).toBeTruthy();
  });
});
