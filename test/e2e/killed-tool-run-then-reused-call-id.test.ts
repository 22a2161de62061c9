/**
 * A run killed mid-tool, then a server that reuses call ids (`call_0` every turn): the
 * next prompt pairs each result with the latest call of its id in its own turn, and the
 * next run's maintenance stores the killed call's result by the same rule (an earlier
 * answered `call_0` does not count for it). The
 * killed call is answered "interrupted, treat it as failed"; the new call gets its real
 * result, so the model does not believe its latest tool failed. Real `bin/clawbox chat`
 * processes (the first one SIGKILLed while `exec` runs) against the fake OpenAI server.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MISSING_RESULT_TEXT } from "../../src/context/index.ts";
import {
  openaiText,
  openaiToolCall,
  type ScriptedServer,
  startFakeOpenAI,
} from "../fakes/openai-server.ts";
import { cloudOnlyConfig } from "../support/openai-provider-fixture.ts";
import { CLAWBOX_BIN, spawnCli } from "../support/spawn-cli.ts";

let server: ScriptedServer;
let home: string;
beforeAll(async () => {
  server = await startFakeOpenAI();
  home = mkdtempSync(join(tmpdir(), "clawbox-reused-id-"));
});
afterAll(async () => {
  await server.close();
  rmSync(home, { recursive: true, force: true });
});

async function waitFor(check: () => boolean, what: string, ms = 30_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

interface WireMessage {
  role: string;
  content?: unknown;
  tool_calls?: { id: string; function: { name: string; arguments: string } }[];
  tool_call_id?: string;
}

describe("a killed run, then a server that reuses call ids", () => {
  it("the next prompt gives the new call its own result and the killed call an interrupted one", async () => {
    const workspace = join(home, "workspace");
    mkdirSync(workspace, { recursive: true });
    writeFileSync(join(workspace, "notes.txt"), "backup finished at 03:12, 41 GB\n");
    writeFileSync(join(home, "clawbox.json"), JSON.stringify(cloudOnlyConfig(server.url)));
    const env = { CLAWBOX_HOME: home };
    writeFileSync(join(workspace, "todo.txt"), "check the backup\n");

    // Turn 1 completes a tool call `call_0`.
    server.enqueue(
      openaiToolCall("read", JSON.stringify({ path: "todo.txt" }), { id: "call_0" }),
      openaiText("Your todo: check the backup."),
    );
    const first = await spawnCli(["chat", "-m", "what is on my todo list?"], env);
    expect(first.code).toBe(0);

    // Turn 2: the model runs a slow command `call_0`; the process is killed while it runs.
    const marker = join(workspace, "started.pid");
    server.enqueue(
      openaiToolCall("exec", JSON.stringify({ command: "echo $$ > started.pid; exec sleep 60" }), {
        id: "call_0",
      }),
    );
    const child = spawn(CLAWBOX_BIN, ["chat", "-m", "is the backup done?"], {
      env: { ...process.env, ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    const exited = new Promise<NodeJS.Signals | null>((resolve) =>
      child.on("exit", (_code, signal) => resolve(signal)),
    );
    try {
      await waitFor(
        () => existsSync(marker) && readFileSync(marker, "utf8").trim() !== "",
        "exec to start",
      );
      child.kill("SIGKILL");
      expect(await exited).toBe("SIGKILL");
    } finally {
      child.kill("SIGKILL");
      const sleeper = Number(readFileSync(marker, "utf8").trim());
      if (sleeper > 0) {
        try {
          process.kill(sleeper, "SIGKILL");
        } catch {
          // already gone
        }
      }
    }

    // Turn 3: the server calls its tool `call_0` again; this one completes.
    server.enqueue(
      openaiToolCall("read", JSON.stringify({ path: "notes.txt" }), { id: "call_0" }),
      openaiText("The backup finished at 03:12."),
    );
    const run = await spawnCli(["chat", "-m", "read notes.txt instead"], env);
    expect(run.code).toBe(0);
    expect(run.stderr).not.toMatch(/error|failed/i);
    expect(run.stdout).toContain("The backup finished at 03:12.");

    const messages =
      (server.requests.at(-1)?.body as { messages?: WireMessage[] } | undefined)?.messages ?? [];
    const resultAfter = (toolName: string, path = "") => {
      const i = messages.findIndex((m) =>
        m.tool_calls?.some(
          (c) => c.function.name === toolName && c.function.arguments.includes(path),
        ),
      );
      expect(i).toBeGreaterThan(0);
      const next = messages[i + 1];
      expect(next?.role).toBe("tool");
      expect(next?.tool_call_id).toBe("call_0");
      return JSON.stringify(next?.content);
    };
    expect(resultAfter("read", "todo.txt")).toContain("check the backup");
    expect(resultAfter("exec")).toContain(JSON.stringify(MISSING_RESULT_TEXT).slice(1, -1));
    expect(resultAfter("read", "notes.txt")).toContain("backup finished at 03:12, 41 GB");
    expect(resultAfter("read", "notes.txt")).not.toContain("Treat it as failed");

    // The stored transcript got the killed call's result too (the next run's maintenance
    // matches within the turn, so the earlier answered call_0 does not count for it).
    const exported = await spawnCli(["sessions", "export", "agent:main:cli:direct:owner"], env);
    expect(exported.code, exported.stderr).toBe(0);
    const stored = exported.stdout
      .trim()
      .split("\n")
      .map(
        (line) =>
          JSON.parse(line) as { type?: string; message?: { role?: string; content?: unknown } },
      )
      .filter((e) => e.type === "message" && e.message?.role === "toolResult");
    expect(
      stored.filter((e) => JSON.stringify(e.message?.content).includes("Treat it as failed")),
    ).toHaveLength(1);
  });
});
