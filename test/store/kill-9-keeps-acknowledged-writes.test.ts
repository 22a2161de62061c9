import { spawn } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { Store } from "../../src/store/index.ts";

const CHILD = join(import.meta.dirname, "..", "support", "append-until-killed.ts");

/** Runs the appender until it has acknowledged `acks` writes, then SIGKILLs it. */
function appendThenKill(dbPath: string, acks: number): Promise<string[]> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CHILD, dbPath, "agent:main:test:direct:crash"], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    const acked: string[] = [];
    let buffer = "";
    let stderr = "";
    child.stderr.on("data", (d) => {
      stderr += d;
    });
    child.stdout.on("data", (chunk: Buffer) => {
      buffer += chunk.toString();
      const lines = buffer.split("\n");
      buffer = lines.pop() ?? "";
      for (const line of lines) if (line.startsWith("ack ")) acked.push(line.slice(4));
      if (acked.length >= acks && !child.killed) child.kill("SIGKILL");
    });
    child.on("exit", (_code, signal) => {
      if (signal === "SIGKILL") resolve(acked);
      else reject(new Error(`appender exited without being killed: ${stderr}`));
    });
  });
}

describe("crash safety", () => {
  it("keeps every acknowledged write and passes integrity_check after kill -9 at random points", async () => {
    const dbPath = join(mkdtempSync(join(tmpdir(), "clawbox-crash-")), "clawbox.db");
    const allAcked: string[] = [];
    for (let round = 0; round < 4; round++) {
      const acked = await appendThenKill(dbPath, 20 + Math.floor(Math.random() * 400));
      allAcked.push(...acked);
      const store = Store.open({ path: dbPath });
      try {
        expect(store.integrityCheck()).toBe("ok");
        const session = store.sessions.byKey("agent:main:test:direct:crash");
        expect(session).toBeDefined();
        if (!session) return;
        const stored = new Set(store.transcript.all(session.sessionId).map((e) => e.id));
        const lost = allAcked.filter((id) => !stored.has(id));
        expect(lost).toEqual([]);
        // The leaf always names an entry that exists, so the next append links correctly.
        expect(session.leafId === null || stored.has(session.leafId)).toBe(true);
      } finally {
        store.close();
      }
    }
    expect(allAcked.length).toBeGreaterThan(80);
  });
});
