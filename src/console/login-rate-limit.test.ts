import { describe, expect, it } from "vitest";
import { PROXIED_CLIENT } from "./client-address.ts";
import { LoginRateLimit } from "./login-rate-limit.ts";

const limits = { perClient: 5, global: 50, windowMs: 600_000 };

describe("login and bearer failures: direct and proxied clients count apart, each with a cap", () => {
  it("proxied failures spread over many addresses meet their own cap, never the local owner's", () => {
    const limit = new LoginRateLimit(() => 1_000, limits);
    // A local user adding X-Forwarded-For from 50 addresses, one failure each.
    for (let i = 0; i < 50; i++) limit.fail(`${PROXIED_CLIENT}127.0.0.${i + 2}`);
    expect(limit.retryAfterSeconds(`${PROXIED_CLIENT}127.0.0.99`)).toBeGreaterThan(0);
    expect(limit.retryAfterSeconds("127.0.0.1")).toBe(0);
  });

  it("direct failures spread over many addresses lock direct clients, not proxied ones", () => {
    const limit = new LoginRateLimit(() => 1_000, limits);
    for (let i = 0; i < 50; i++) limit.fail(`127.0.0.${i + 2}`);
    expect(limit.retryAfterSeconds("127.0.0.99")).toBeGreaterThan(0);
    expect(limit.retryAfterSeconds(`${PROXIED_CLIENT}127.0.0.1`)).toBe(0);
  });
});
