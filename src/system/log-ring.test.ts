import { describe, expect, it } from "vitest";
import { LogRing } from "./log-ring.ts";
import { createLogger } from "./logger.ts";

describe("the log ring", () => {
  it("keeps only the newest lines, by count and by bytes, and filters by level", () => {
    const ring = new LogRing(3, 1_000_000);
    for (let i = 1; i <= 5; i++) ring.push(i % 2 ? "info" : "warn", `line ${i}`);
    expect(ring.entries().map((e) => e.line)).toEqual(["line 3", "line 4", "line 5"]);
    expect(ring.entries("warn").map((e) => e.line)).toEqual(["line 4"]);
    const small = new LogRing(1000, 100);
    for (let i = 0; i < 50; i++) small.push("info", "x".repeat(30));
    expect(small.size).toBe(3);
    const huge = new LogRing(10, 10_000);
    huge.push("error", "y".repeat(50_000));
    expect(huge.entries()[0]?.line.length).toBeLessThanOrEqual(4001);
  });

  it("receives the logger's lines already redacted, including secrets added after the start", () => {
    const ring = new LogRing();
    const secrets: string[] = ["first-secret-123"];
    const logger = createLogger({
      secrets,
      write: () => {},
      tap: (level, line) => ring.push(level, line),
    });
    logger.info("token first-secret-123 used");
    secrets.push("later-secret-456");
    logger.warn("connecting", { key: "later-secret-456" });
    const text = ring
      .entries()
      .map((e) => e.line)
      .join("\n");
    expect(text).not.toContain("first-secret-123");
    expect(text).not.toContain("later-secret-456");
    expect(ring.entries().map((e) => e.level)).toEqual(["info", "warn"]);
  });
});
