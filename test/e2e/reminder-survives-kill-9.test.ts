import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { Store } from "../../src/store/index.ts";
import {
  openaiText,
  openaiToolCall,
  type ScriptedServer,
  startFakeOpenAI,
} from "../fakes/openai-server.ts";
import { CLAWBOX_BIN } from "../support/spawn-cli.ts";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Running {
  child: ChildProcess;
  url: string;
  exited: Promise<void>;
}

/** Starts `clawbox run --port 0` and resolves once it listens. */
function startRun(home: string): Promise<Running> {
  return new Promise((resolve, reject) => {
    const child = spawn(CLAWBOX_BIN, ["run", "--port", "0"], {
      env: { ...process.env, CLAWBOX_HOME: home },
      stdio: ["ignore", "pipe", "pipe"],
    });
    const exited = new Promise<void>((done) => child.on("exit", () => done()));
    let out = "";
    let err = "";
    child.stderr?.on("data", (d) => {
      err += d;
    });
    child.stdout?.on("data", (d) => {
      out += d;
      const match = /listening on (http:\/\/\S+)/.exec(out);
      if (match?.[1]) resolve({ child, url: match[1], exited });
    });
    child.on("exit", (code) => reject(new Error(`clawbox run exited ${code}: ${err}`)));
  });
}

const reminderRequests = (server: ScriptedServer) =>
  server.requests.filter((r) => JSON.stringify(r.body.messages).includes("Scheduled reminder"));

async function until(check: () => boolean, ms: number): Promise<boolean> {
  for (let waited = 0; waited < ms; waited += 100) {
    if (check()) return true;
    await sleep(100);
  }
  return check();
}

let server: ScriptedServer | undefined;
const homes: string[] = [];
afterAll(async () => {
  await server?.close();
  for (const home of homes) rmSync(home, { recursive: true, force: true });
});

describe("a reminder and kill -9", () => {
  it("added 'in 2 seconds', then the process is killed -9 and restarted: it fires once, in its origin session", {
    timeout: 120_000,
  }, async () => {
    server = await startFakeOpenAI();
    const home = mkdtempSync(join(tmpdir(), "clawbox-cron-kill-"));
    homes.push(home);
    writeFileSync(
      join(home, "clawbox.json"),
      JSON.stringify({
        models: {
          primary: "cloud",
          fallbacks: [],
          providers: {
            cloud: {
              kind: "openai",
              baseUrl: server.url,
              model: "m",
              authProfiles: [{ id: "p", apiKey: "test-key" }],
            },
          },
        },
        agent: { owners: ["cli", "web:local"] },
        memory: { enabled: false },
        heartbeat: { enabled: false },
      }),
    );
    server.enqueue(
      openaiToolCall(
        "cron",
        JSON.stringify({ action: "add", text: "take the bins out", at: "in 2 seconds" }),
      ),
      openaiText("Reminder set."),
      openaiText("Time to take the bins out!"),
    );

    const first = await startRun(home);
    const response = await fetch(`${first.url}/api/chat`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ message: "remind me in 2 seconds to take the bins out" }),
    });
    const chat = (await response.json()) as { reply: string; sessionKey: string };
    first.child.kill("SIGKILL");
    await first.exited;
    expect(chat.reply).toBe("Reminder set.");
    expect(reminderRequests(server)).toHaveLength(0);

    await sleep(2500); // the reminder comes due while the box is down
    const second = await startRun(home);
    expect(await until(() => reminderRequests(server as ScriptedServer).length > 0, 20_000)).toBe(
      true,
    );
    await sleep(1500);
    second.child.kill("SIGTERM");
    await second.exited;

    const third = await startRun(home);
    await sleep(2000);
    third.child.kill("SIGTERM");
    await third.exited;

    expect(reminderRequests(server)).toHaveLength(1);
    const store = Store.open({ path: join(home, "clawbox.db") });
    try {
      const session = store.sessions.byKey(chat.sessionKey);
      const messages = store.transcript
        .branch(session?.sessionId ?? "")
        .flatMap((e) => (e.type === "message" ? [e.message] : []));
      const reminderAt = messages.findIndex(
        (m) =>
          m.role === "user" &&
          JSON.stringify(m.content).includes("take the bins out") &&
          JSON.stringify(m.content).includes("Scheduled reminder"),
      );
      expect(reminderAt).toBeGreaterThan(0);
      expect(
        messages.filter((m) => JSON.stringify(m.content).includes("Scheduled reminder")),
      ).toHaveLength(1);
      expect(JSON.stringify(messages[reminderAt + 1]?.content)).toContain(
        "Time to take the bins out!",
      );
      const runs = store.db.query("SELECT status FROM cron_runs").all() as { status: string }[];
      expect(runs).toEqual([{ status: "ok" }]);
    } finally {
      store.close();
    }
  });
});
