import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = join(import.meta.dirname, "..", "..");

/** Child pids of `pid` (ps from procps). */
function children(pid: number): number[] {
  const out = spawnSync("ps", ["-o", "pid=", "--ppid", String(pid)], { encoding: "utf8" }).stdout;
  return out
    .split("\n")
    .map((l) => Number(l.trim()))
    .filter((n) => n > 0);
}

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe("kill -TERM of npm start", () => {
  it("stops clawbox too instead of leaving bun orphaned", async () => {
    const home = mkdtempSync(join(tmpdir(), "clawbox-npm-"));
    const npm = spawn("npm", ["start", "--", "--port", "0"], {
      cwd: ROOT,
      env: { ...process.env, CLAWBOX_HOME: home },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    npm.stdout.on("data", (d) => {
      out += d;
    });
    for (let i = 0; i < 600 && !out.includes("listening on"); i++) {
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(out).toContain("listening on");
    // Every process below npm (sh, bun): all must be gone after npm gets SIGTERM.
    const below = children(npm.pid as number).flatMap((c) => [c, ...children(c)]);
    expect(below.length).toBeGreaterThan(0);
    npm.kill("SIGTERM");
    await new Promise((r) => npm.on("exit", r));
    for (let i = 0; i < 200 && below.some(alive); i++) await new Promise((r) => setTimeout(r, 50));
    const left = below.filter(alive);
    for (const pid of left) process.kill(pid, "SIGKILL");
    expect(left).toEqual([]);
  }, 60_000);
});
