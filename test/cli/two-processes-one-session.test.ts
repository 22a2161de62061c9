import { spawn } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { messageText } from "../../src/messages/index.ts";
import { Store } from "../../src/store/index.ts";
import { openaiText, type ScriptedServer, startFakeOpenAI } from "../fakes/openai-server.ts";
import { CLAWBOX_BIN } from "../support/spawn-cli.ts";

let server: ScriptedServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

function chat(home: string, text: string): Promise<number | null> {
  return new Promise((resolve) => {
    const child = spawn(CLAWBOX_BIN, ["chat", "--session", "shared", "-m", text], {
      env: { ...process.env, CLAWBOX_HOME: home },
      stdio: "ignore",
    });
    child.on("exit", (code) => resolve(code));
  });
}

async function until(test: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 600; i++) {
    if (test()) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`timed out waiting for ${what}`);
}

describe("two processes chatting in one session", () => {
  it("take turns: the transcript alternates user/assistant and the second turn sees the first", async () => {
    server = await startFakeOpenAI();
    const words = "one two three four five six seven eight nine ten";
    // Slow replies (150 ms a word) so the second process arrives mid-reply.
    server.enqueue(
      openaiText(`first reply ${words}`, { delayMs: 150 }),
      openaiText(`second reply ${words}`, { delayMs: 150 }),
    );
    const home = mkdtempSync(join(tmpdir(), "clawbox-two-"));
    writeFileSync(
      join(home, "clawbox.json"),
      JSON.stringify({
        models: {
          primary: "cloud",
          providers: {
            cloud: {
              kind: "openai",
              baseUrl: server.url,
              model: "m",
              authProfiles: [{ id: "p", apiKey: "test-key-0123456789" }],
            },
          },
        },
        memory: { enabled: false },
      }),
    );
    const fake = server;
    const first = chat(home, "question A");
    await until(() => fake.requests.length >= 1, "the first process's model request");
    const second = chat(home, "question B");
    expect(await first).toBe(0);
    expect(await second).toBe(0);

    const store = Store.open({ path: join(home, "clawbox.db") });
    try {
      const session = store.sessions.byKey("agent:main:cli:direct:shared");
      if (!session) throw new Error("no session");
      const turns = store.transcript
        .branch(session.sessionId)
        .flatMap((e) =>
          e.type === "message" ? [`${e.message.role}:${messageText(e.message)}`] : [],
        );
      expect(turns.map((t) => t.split(":")[0])).toEqual(["user", "assistant", "user", "assistant"]);
      expect(turns[1]).toContain("first reply");
      expect(turns[2]).toContain("question B");
    } finally {
      store.close();
    }
    // The second model call carried the whole first turn.
    expect(JSON.stringify(fake.requests[1]?.body)).toContain("first reply one two");
  }, 120_000);
});
