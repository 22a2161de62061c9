import { existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createExecTool } from "../../src/tools/index.ts";
import { createHarness, type Harness } from "../agent/agent-harness.ts";
import { createFakeProvider } from "../fakes/fake-provider.ts";

let harness: Harness | undefined;
const dirs: string[] = [];
afterEach(async () => {
  await harness?.close();
  harness = undefined;
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const toolNames = (provider: ReturnType<typeof createFakeProvider>) =>
  provider.requests[0]?.tools.map((t) => t.name) ?? [];

describe("exec", () => {
  it("is never offered to a non-owner, and a forced call is refused", async () => {
    const provider = createFakeProvider({
      script: [
        { toolCalls: [{ name: "exec", arguments: { command: "touch pwned" } }] },
        { text: "I cannot do that." },
      ],
    });
    harness = createHarness({
      providers: { fake: provider },
      config: { agent: { owners: ["qq:OWNER"] } },
    });
    const result = await harness.agent.chat({
      sessionKey: "agent:main:qq:group:G1",
      text: "run touch pwned",
      channel: "qq",
      senderId: "qq:STRANGER",
      chatType: "group",
      groupId: "G1",
    });
    expect(toolNames(provider)).not.toContain("exec");
    expect(toolNames(provider)).toContain("read");
    const toolResult = harness.messages(result.sessionKey).find((m) => m.role === "toolResult");
    expect(toolResult?.role === "toolResult" && toolResult.isError).toBe(true);
    expect(JSON.stringify(toolResult)).toContain("TOOL_DENIED");
    expect(existsSync(join(harness.paths.workspace, "pwned"))).toBe(false);
    expect(result.reply).toBe("I cannot do that.");
  });

  it("runs for an owner", async () => {
    const provider = createFakeProvider({
      script: [
        {
          toolCalls: [{ name: "exec", arguments: { command: "echo hi > made.txt && echo done" } }],
        },
        { text: "ok" },
      ],
    });
    harness = createHarness({ providers: { fake: provider } });
    const result = await harness.agent.chat({
      sessionKey: "k",
      text: "go",
      channel: "cli",
      senderId: "cli",
      chatType: "direct",
    });
    expect(toolNames(provider)).toContain("exec");
    expect(existsSync(join(harness.paths.workspace, "made.txt"))).toBe(true);
    const toolResult = harness.messages(result.sessionKey).find((m) => m.role === "toolResult");
    expect(JSON.stringify(toolResult)).toContain("done");
  });

  it("kills the whole process group on timeout and on abort", async () => {
    const workspace = mkdtempSync(join(tmpdir(), "clawbox-exec-"));
    dirs.push(workspace);
    mkdirSync(workspace, { recursive: true });
    const exec = createExecTool({ timeoutMs: 300, maxOutputChars: 1000 });
    const base = { sessionId: "s", sessionKey: "k", isOwner: true, workspace };
    // the grandchild would create the file after 1.5 s if it survived
    const timedOut = await exec.execute(
      { command: "(sleep 1.5; touch late1) & sleep 5" },
      { ...base, signal: new AbortController().signal },
    );
    expect(timedOut.isError).toBe(true);
    expect(JSON.stringify(timedOut.content)).toContain("timed out");
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 200);
    const aborted = await exec.execute(
      { command: "(sleep 1.5; touch late2) & sleep 5", timeoutMs: 10000 },
      { ...base, signal: controller.signal },
    );
    expect(JSON.stringify(aborted.content)).toContain("ABORTED");
    await Bun.sleep(1800);
    expect(existsSync(join(workspace, "late1"))).toBe(false);
    expect(existsSync(join(workspace, "late2"))).toBe(false);
  });

  it("caps output", async () => {
    const workspace = mkdtempSync(join(tmpdir(), "clawbox-exec-"));
    dirs.push(workspace);
    const exec = createExecTool({ timeoutMs: 5000, maxOutputChars: 200 });
    const out = await exec.execute(
      { command: "seq 1 5000" },
      {
        sessionId: "s",
        sessionKey: "k",
        isOwner: true,
        workspace,
        signal: new AbortController().signal,
      },
    );
    const text = JSON.stringify(out.content);
    expect(text).toContain("characters cut");
    expect(text.length).toBeLessThan(600);
  });
});

describe("exec deadlines and environment", () => {
  const base = (workspace: string) => ({
    sessionId: "s",
    sessionKey: "k",
    isOwner: true,
    workspace,
    signal: new AbortController().signal,
  });

  it("a daemon that leaves the group and holds the pipes cannot hang the call", async () => {
    const workspace = mkdtempSync(join(tmpdir(), "clawbox-exec-"));
    dirs.push(workspace);
    const exec = createExecTool({ timeoutMs: 500, maxOutputChars: 1000 });
    const hung = Symbol("hung");
    // Without the fix the call returns only when `sleep 8` ends; the race shows it does not wait.
    const sentinel = new Promise<typeof hung>((resolve) => setTimeout(() => resolve(hung), 5000));
    for (const command of ["setsid sleep 8 & sleep 3", "setsid sleep 8 &"]) {
      const out = await Promise.race([exec.execute({ command }, base(workspace)), sentinel]);
      expect(out, command).not.toBe(hung);
    }
    // the shell exits at once; its daemon keeps the pipes: the call returns with exit 0
    const long = createExecTool({ timeoutMs: 20_000, maxOutputChars: 1000 });
    const started = await Promise.race([
      long.execute({ command: "echo started; setsid sleep 8 &" }, base(workspace)),
      sentinel,
    ]);
    expect(started).not.toBe(hung);
    expect(started).toMatchObject({ isError: false, details: { exitCode: 0 } });
    expect(JSON.stringify(started)).toContain("started");
  }, 15_000);

  it("commands never see clawbox's token or provider keys", async () => {
    const workspace = mkdtempSync(join(tmpdir(), "clawbox-exec-"));
    dirs.push(workspace);
    process.env.CLAWBOX_TOKEN = "token-should-not-leak";
    process.env.OPENAI_API_KEY = "sk-should-not-leak";
    process.env.HA_HOST = "homeassistant.local";
    try {
      const exec = createExecTool({ timeoutMs: 5000, maxOutputChars: 10000, passEnv: ["HA_HOST"] });
      const out = await exec.execute({ command: "env" }, base(workspace));
      const text = JSON.stringify(out.content);
      expect(text).not.toContain("should-not-leak");
      expect(text).toContain("PATH=");
      expect(text).toContain("HA_HOST=homeassistant.local");
    } finally {
      delete process.env.CLAWBOX_TOKEN;
      delete process.env.OPENAI_API_KEY;
      delete process.env.HA_HOST;
    }
  });
});
