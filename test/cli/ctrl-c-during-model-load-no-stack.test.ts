/**
 * Ctrl-C while the local model loads: node-llama-cpp first tests its binary in a child
 * process of ours (same process group), and the terminal's SIGINT kills that child too.
 * That printed node-llama-cpp's stack trace ("Binding binary test failed …
 * testBindingBinary.js:167") and the runtime gave up. Now its console goes to the debug
 * log, and the start is tried once more, so the reply being drained can still finish.
 * The SIGINT here goes to the whole process group the moment the test child appears,
 * as a terminal would send it.
 */
import { spawn, spawnSync } from "node:child_process";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = join(import.meta.dirname, "..", "..");
const BUN = join(ROOT, "node_modules", ".bin", "bun");

/** The command lines of `pid`'s child processes. */
function childCommands(pid: number): string[] {
  const out = spawnSync("ps", ["-o", "args=", "--ppid", String(pid)], { encoding: "utf8" }).stdout;
  return out.split("\n").filter((line) => line.trim() !== "");
}

describe("Ctrl-C while llama.cpp starts", () => {
  it("prints no node-llama-cpp stack trace and the runtime still starts", async () => {
    const child = spawn(BUN, [join(ROOT, "test", "support", "start-llama-once.ts")], {
      detached: true, // its own process group, like a terminal's foreground job
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => {
      stdout += d;
    });
    child.stderr.on("data", (d) => {
      stderr += d;
    });
    let interrupted: string | undefined;
    const poll = setInterval(() => {
      if (interrupted || child.pid === undefined) return;
      const test = childCommands(child.pid).find((c) => c.includes("testBindingBinary"));
      if (!test) return;
      interrupted = test;
      process.kill(-child.pid, "SIGINT");
    }, 10);
    const code = await new Promise<number | null>((resolve) => child.on("exit", resolve));
    clearInterval(poll);
    expect(interrupted, "node-llama-cpp's binary test process was never seen").toBeDefined();
    expect(stderr).toContain("SIGINT received");
    expect(code).toBe(0);
    expect(stdout.trim()).toBe("started");
    // What a person would have seen: no stack trace, no file:line of node-llama-cpp.
    const shown = stderr
      .split("\n")
      .filter((line) => !line.startsWith("DEBUG"))
      .join("\n");
    expect(shown).not.toMatch(/testBindingBinary\.js:\d+|^\s+at /m);
    expect(shown).not.toContain("[node-llama-cpp]");
  }, 120_000);
});
