/**
 * Issue 22: a session name (`kitchen`) worked in `clawbox chat` only: `context list` and
 * `compact` answered "no session with id or key kitchen", and `sessions import F
 * --new-id --key mycopy` stored the raw key `mycopy`, so a later `chat --session
 * mycopy` started a different session. Now every command (and the console) resolves a
 * name the same way. Also: `clawbox compact` rewrites a transcript only while it holds
 * the session's lease (before, it did not take it, and raced a running turn). The CLI
 * runs in-process against a fake Anthropic server on loopback and a real SQLite file.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { configSchema } from "../../src/config/index.ts";
import { findConsoleSession } from "../../src/console/api-sessions.ts";
import type { ConsoleDeps } from "../../src/console/index.ts";
import { createSessionResolver } from "../../src/sessions/index.ts";
import { Store } from "../../src/store/index.ts";
import { type ScriptedServer, startFakeAnthropic } from "../fakes/anthropic-server.ts";
import { runCli } from "../support/run-cli.ts";

let server: ScriptedServer;
let home: string;
let env: Record<string, string>;
beforeAll(async () => {
  server = await startFakeAnthropic();
  home = mkdtempSync(join(tmpdir(), "clawbox-names-"));
  const configFile = join(home, "clawbox.json");
  writeFileSync(
    configFile,
    JSON.stringify({
      models: {
        primary: "claude",
        providers: {
          claude: {
            kind: "anthropic",
            baseUrl: server.url,
            model: "claude-fake",
            authProfiles: [{ id: "main", apiKey: "ant-test-key-000000" }],
          },
        },
      },
      memory: { enabled: false },
    }),
  );
  env = { CLAWBOX_HOME: home, CLAWBOX_CONFIG: configFile };
});
afterAll(async () => {
  await server.close();
  rmSync(home, { recursive: true, force: true });
});

const KITCHEN = "agent:main:cli:direct:kitchen";

function withStore<T>(read: (store: Store) => T): T {
  const store = Store.open({ path: join(home, "clawbox.db") });
  try {
    return read(store);
  } finally {
    store.close();
  }
}

describe("--session NAME", () => {
  it("names the same session in chat, context, compact, sessions export|import|delete and the console", async () => {
    const chat = await runCli(["chat", "--session", "kitchen", "-m", "the oven timer"], env);
    expect(chat.code).toBe(0);
    expect(chat.stderr).toContain(`session: ${KITCHEN}`);
    const id = withStore((s) => s.sessions.byKey(KITCHEN)?.sessionId);
    expect(id).toBeDefined();

    const context = await runCli(["context", "list", "--session", "kitchen"], env);
    expect(context.code).toBe(0);
    expect(context.stdout).toContain(`Session: ${KITCHEN} [${id}]`);

    const compact = await runCli(["compact", "--session", "kitchen"], env);
    expect(compact.stderr).not.toContain("no session");
    expect(compact.code).toBe(0);

    const file = join(home, "kitchen.jsonl");
    const exported = await runCli(["sessions", "export", "kitchen", "-o", file], env);
    expect(exported.code).toBe(0);
    expect(readFileSync(file, "utf8")).toContain("the oven timer");

    const imported = await runCli(["sessions", "import", file, "--new-id", "--key", "mycopy"], env);
    expect(imported.code).toBe(0);
    const copy = /imported (\S+) as (\S+) /.exec(imported.stdout);
    expect(copy?.[2]).toBe("agent:main:cli:direct:mycopy");
    // A later chat under that name continues the imported copy.
    const more = await runCli(["chat", "--session", "mycopy", "-m", "and the fridge"], env);
    expect(more.code).toBe(0);
    withStore((s) => {
      const row = s.sessions.byKey("agent:main:cli:direct:mycopy");
      expect(row?.sessionId).toBe(copy?.[1]);
      expect(s.transcript.count(row?.sessionId ?? "")).toBeGreaterThan(2);
    });

    // The console resolves the name as the CLI does (its transcript and context pages).
    withStore((store) => {
      const config = configSchema.parse({});
      const deps = { store, config, sessions: createSessionResolver(config.agent) };
      expect(findConsoleSession(deps as unknown as ConsoleDeps, "kitchen")?.sessionId).toBe(id);
    });

    const deleted = await runCli(["sessions", "delete", "kitchen"], env);
    expect(deleted.code).toBe(0);
    expect(deleted.stdout).toContain(`deleted session ${id} (${KITCHEN}`);
    expect(withStore((s) => s.sessions.byKey(KITCHEN))).toBeUndefined();
    expect(existsSync(file)).toBe(true);
  });

  it("clawbox compact waits while another process holds the session, then compacts", async () => {
    for (let i = 0; i < 3; i++) {
      const turn = await runCli(["chat", "--session", "garage", "-m", `turn ${i}`], env);
      expect(turn.code).toBe(0);
    }
    const key = "agent:main:cli:direct:garage";
    const holder = Store.open({ path: join(home, "clawbox.db") });
    const lease = holder.leases.tryAcquire(key);
    expect(lease).toBeDefined();
    let finished = false;
    const compact = runCli(["compact", "--session", "garage"], env).then((run) => {
      finished = true;
      return run;
    });
    try {
      await new Promise((resolve) => setTimeout(resolve, 1500));
      expect(finished).toBe(false);
      const id = holder.sessions.byKey(key)?.sessionId ?? "";
      expect(holder.transcript.branch(id).some((e) => e.type === "compaction")).toBe(false);
    } finally {
      lease?.release();
    }
    const run = await compact;
    expect(run.code).toBe(0);
    expect(run.stderr).toContain("session busy in another process");
    holder.close();
  });
});
