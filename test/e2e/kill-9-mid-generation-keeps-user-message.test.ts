import { spawn } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { Store } from "../../src/store/index.ts";
import { CLAWBOX_BIN, spawnCli } from "../support/spawn-cli.ts";
import { HAVE_STORIES, STORIES_MODEL } from "../support/stories-model.ts";

/** Starts a chat and SIGKILLs it as soon as the first streamed text reaches stdout. */
function chatKilledMidStream(
  home: string,
  text: string,
): Promise<{ killed: boolean; streamed: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(CLAWBOX_BIN, ["chat", "-m", text], {
      env: { ...process.env, CLAWBOX_HOME: home, CLAWBOX_THREADS: "1" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let streamed = "";
    let stderr = "";
    let killed = false;
    child.stderr.on("data", (d) => {
      stderr += d;
    });
    child.stdout.on("data", (d) => {
      streamed += d;
      if (!killed && streamed.trim().length > 0) {
        killed = child.kill("SIGKILL");
      }
    });
    child.on("exit", (_code, signal) =>
      resolve({ killed: killed && signal === "SIGKILL", streamed, stderr }),
    );
  });
}

describe.skipIf(!HAVE_STORIES)("kill -9 during a chat", () => {
  it("finds the user message stored, the database intact, and the session usable again", {
    timeout: 300_000,
  }, async () => {
    const home = mkdtempSync(join(tmpdir(), "clawbox-kill-"));
    // A long reply budget so the model is still generating when the kill lands.
    writeFileSync(
      join(home, "clawbox.json"),
      JSON.stringify({
        models: {
          providers: {
            local: {
              kind: "local",
              path: STORIES_MODEL,
              maxTokens: 1500,
              contextSize: 2048,
              threads: 1,
            },
          },
        },
      }),
    );
    const run = await chatKilledMidStream(home, "Once upon a time there was a dragon");
    expect(run.stderr).not.toContain("clawbox chat:");
    expect(run.killed).toBe(true);

    const store = Store.open({ path: join(home, "clawbox.db") });
    try {
      expect(store.integrityCheck()).toBe("ok");
      const [session] = store.sessions.list();
      expect(session).toBeDefined();
      if (!session) return;
      const users = store.transcript
        .all(session.sessionId)
        .filter((e) => e.type === "message" && e.message.role === "user")
        .map((e) => (e.type === "message" ? JSON.stringify(e.message.content) : ""));
      // Stored as the model saw it (with the per-turn envelope), so later turns replay it byte for byte.
      expect(users).toHaveLength(1);
      expect(users[0]).toContain("Once upon a time there was a dragon");
    } finally {
      store.close();
    }

    const again = await spawnCli(
      ["chat", "-m", "The end"],
      { CLAWBOX_HOME: home, CLAWBOX_THREADS: "1" },
      240_000,
    );
    expect(again.code).toBe(0);
  });
});
