import { describe, expect, it } from "vitest";
import { PROXIED_CLIENT } from "./client-address.ts";
import { ConsoleAuth } from "./console-auth.ts";
import { issueTicket, TICKET_TTL_MS, type TicketClock, TicketVerifier } from "./login-ticket.ts";

const SECRET = "abcd-efgh-jkmn-pqrs-tuvw-xyz2";
const TOKEN = "correct-horse-battery-staple";

function fakeClock(bootId: string | undefined, start = 50_000) {
  const clock = { bootId, t: start, nowMs: () => clock.t };
  return clock as TicketClock & { t: number };
}

describe("console auth", () => {
  it("gives a session token only for the login secret or server.token; logout ends it", () => {
    const auth = new ConsoleAuth({ secrets: [SECRET, TOKEN] });
    expect(auth.login("wrong-token-000000", "10.0.0.2")).toEqual({ ok: false, limited: false });
    expect(auth.login("", "10.0.0.2")).toEqual({ ok: false, limited: false });
    for (const typed of [SECRET, TOKEN]) {
      const ok = auth.login(typed, "10.0.0.2");
      expect(ok.ok).toBe(true);
      if (!ok.ok) return;
      expect(ok.token).toMatch(/^[A-Za-z0-9_-]{40,}$/);
      expect(ok.token).not.toContain(typed);
      expect(auth.expiresAt(ok.token)).toBe(ok.expiresAt);
      expect(auth.expiresAt(`${ok.token}x`)).toBeUndefined();
      auth.logout(ok.token);
      expect(auth.expiresAt(ok.token)).toBeUndefined();
    }
    expect(auth.expiresAt("made-up-session")).toBeUndefined();
  });

  it("has no open mode: without a login nobody has a session, whatever is configured", () => {
    const auth = new ConsoleAuth({ secrets: [SECRET] });
    expect(auth.expiresAt(undefined)).toBeUndefined();
    expect(auth.expiresAt("")).toBeUndefined();
    // An empty secret (no server.token) never matches an empty login.
    const noToken = new ConsoleAuth({ secrets: [SECRET, ""] });
    expect(noToken.login("", "127.0.0.1").ok).toBe(false);
  });

  it("locks an address out after five failures, even for the right secret, until the window passes", () => {
    let now = 1_000_000;
    const auth = new ConsoleAuth({ secrets: [SECRET], now: () => now });
    for (let i = 0; i < 5; i++)
      expect(auth.login(`guess-${i}-xxxxxxxxxx`, "10.0.0.9").ok).toBe(false);
    expect(auth.retryAfterSeconds("10.0.0.9")).toBeGreaterThan(0);
    expect(auth.login(SECRET, "10.0.0.9")).toMatchObject({ ok: false, limited: true });
    expect(auth.login(SECRET, "10.0.0.10").ok).toBe(true);
    now += 10 * 60 * 1000 + 1;
    expect(auth.login(SECRET, "10.0.0.9").ok).toBe(true);
  });

  it("counts failures through a reverse proxy apart: they never lock the owner's direct login, nor all clients", () => {
    const auth = new ConsoleAuth({ secrets: [SECRET] });
    // 60 failures through proxies at 12 addresses (each proxy's clients arrive from it).
    for (let i = 0; i < 60; i++)
      auth.login(`guess-${i}-xxxxxxxxxx`, `${PROXIED_CLIENT}10.0.1.${i % 12}`);
    expect(auth.login(SECRET, `${PROXIED_CLIENT}10.0.1.0`)).toMatchObject({ limited: true });
    expect(auth.login(SECRET, "127.0.0.1").ok).toBe(true);
    expect(auth.login(SECRET, "10.0.0.10").ok).toBe(true);
  });

  it("expires sessions", () => {
    let now = 0;
    const auth = new ConsoleAuth({ secrets: [SECRET], now: () => now });
    const ok = auth.login(SECRET, "a");
    if (!ok.ok) throw new Error("login failed");
    now += 11 * 60 * 60 * 1000;
    expect(auth.expiresAt(ok.token)).toBe(ok.expiresAt);
    now += 2 * 60 * 60 * 1000;
    expect(auth.expiresAt(ok.token)).toBeUndefined();
  });
});

describe("one-time login links", () => {
  it("open one session once; a reused, forged, late or pre-start ticket is refused", () => {
    const clock = fakeClock("boot-a");
    const early = issueTicket(SECRET, clock);
    clock.t += 5_000;
    const verifier = new TicketVerifier([SECRET], clock);
    const auth = new ConsoleAuth({ secrets: [SECRET], tickets: verifier });
    const ticket = issueTicket(SECRET, clock);
    expect(auth.redeem(ticket, "127.0.0.1").ok).toBe(true);
    expect(verifier.redeem(ticket)).toEqual({ ok: false, reason: "already used" });
    expect(verifier.redeem(early)).toEqual({
      ok: false,
      reason: "made before this service started",
    });
    expect(verifier.redeem(issueTicket("another-secret-0000000000", clock))).toMatchObject({
      reason: "bad signature",
    });
    const tampered = issueTicket(SECRET, clock).replace(
      /\.(\d+)\./,
      (_, t) => `.${Number(t) + 1}.`,
    );
    expect(verifier.redeem(tampered)).toMatchObject({ reason: "bad signature" });
    const late = issueTicket(SECRET, clock);
    clock.t += TICKET_TTL_MS + 1;
    expect(verifier.redeem(late)).toMatchObject({ reason: "expired" });
    const otherBoot = issueTicket(SECRET, fakeClock("boot-b", clock.t));
    expect(verifier.redeem(otherBoot)).toMatchObject({ reason: "from another boot" });
    expect(verifier.redeem("t1.x")).toMatchObject({ reason: "malformed" });
  });

  it("count failed links against the address like failed logins", () => {
    const auth = new ConsoleAuth({ secrets: [SECRET], tickets: new TicketVerifier([SECRET]) });
    for (let i = 0; i < 5; i++) expect(auth.redeem(`t1.a.b.c.${i}`, "10.0.0.3").ok).toBe(false);
    expect(auth.redeem(issueTicket(SECRET), "10.0.0.3")).toMatchObject({ limited: true });
  });
});
