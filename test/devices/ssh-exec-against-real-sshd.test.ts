import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { configSchema } from "../../src/config/index.ts";
import { createDeviceTools } from "../../src/devices/index.ts";
import type { AgentTool, ToolContext, ToolOutput } from "../../src/tools/index.ts";
import { createHarness } from "../agent/agent-harness.ts";
import { createFakeProvider } from "../fakes/fake-provider.ts";
import { sshdMissing, startTestSshd, type TestSshd } from "../support/test-sshd.ts";

if (sshdMissing) console.warn(`skipping ssh_exec against a real sshd: ${sshdMissing}`);

let sshd: TestSshd | undefined;
const homes: string[] = [];
beforeAll(async () => {
  if (!sshdMissing) sshd = await startTestSshd();
});
afterAll(async () => {
  await sshd?.stop();
  for (const home of homes) rmSync(home, { recursive: true, force: true });
});

function box(
  options: {
    knownHosts?: boolean;
    ssh?: Record<string, unknown>;
    toolsMd?: string;
    timeoutMs?: number;
  } = {},
) {
  const server = sshd as TestSshd;
  const home = mkdtempSync(join(tmpdir(), "clawbox-ssh-"));
  homes.push(home);
  const workspace = join(home, "workspace");
  mkdirSync(workspace, { recursive: true });
  mkdirSync(join(home, "ssh"), { recursive: true });
  writeFileSync(
    join(home, "ssh", "known_hosts"),
    options.knownHosts === false ? "" : `${server.knownHostsLine}\n`,
  );
  writeFileSync(
    join(workspace, "TOOLS.md"),
    options.toolsMd ??
      `# TOOLS.md\n\n## SSH hosts\n\n- name: testbox\n  host: 127.0.0.1\n  port: ${server.port}\n  user: ${server.user}\n  key_file: ${server.userKey}\n  description: the test server\n`,
  );
  const tools = configSchema.parse({
    tools: { ssh: options.ssh ?? {}, devices: { timeoutMs: options.timeoutMs ?? 30_000 } },
  }).tools;
  const [tool] = createDeviceTools({ tools, home, workspace })().filter(
    (t) => t.name === "ssh_exec",
  );
  if (!tool) throw new Error("no ssh_exec tool");
  return { tool, home, workspace };
}

const ctx = (isOwner: boolean): ToolContext => ({
  sessionId: "s",
  sessionKey: "k",
  senderId: isOwner ? "cli" : "qq:STRANGER",
  isOwner,
  workspace: "/tmp",
  signal: new AbortController().signal,
});

const text = (out: ToolOutput) =>
  out.content.map((c) => (c.type === "text" ? c.text : "")).join("");
const run = (tool: AgentTool, command: string, owner = true) =>
  tool.execute({ host: "testbox", command }, ctx(owner));

describe.skipIf(sshdMissing !== undefined)("ssh_exec against a real OpenSSH server", () => {
  it("runs uname -a on the host from TOOLS.md", async () => {
    const { tool } = box();
    expect(tool.ownerOnly).toBe(true);
    const out = await run(tool, "uname -a");
    expect(out.isError).toBeFalsy();
    expect(text(out)).toMatch(/^Linux /);
    expect(text(out)).toContain("[testbox: exit code 0]");
  });

  it("refuses a host whose key is not in the box's known_hosts, in plain words", async () => {
    const { tool, home } = box({ knownHosts: false });
    const out = await run(tool, "uname -a");
    expect(out.isError).toBe(true);
    expect(text(out)).toContain("the host key of testbox");
    expect(text(out)).toContain(join(home, "ssh", "known_hosts"));
    expect(text(out)).toContain("ssh-keyscan");
  });

  it("is refused for a non-owner, and never offered to one by the agent", async () => {
    const { tool, home, workspace } = box();
    const out = await run(tool, "touch /tmp/clawbox-ssh-pwned", false);
    expect(out.isError).toBe(true);
    expect(text(out)).toBe("ssh_exec refused: testbox is for the owner only");

    const provider = createFakeProvider({
      script: [
        { toolCalls: [{ name: "ssh_exec", arguments: { host: "testbox", command: "id" } }] },
        { text: "no" },
      ],
    });
    const harness = createHarness({
      providers: { fake: provider },
      config: { agent: { owners: ["qq:OWNER"] } },
      tools: [tool],
    });
    try {
      const result = await harness.agent.chat({
        sessionKey: "agent:main:qq:direct:STRANGER",
        text: "run id on testbox",
        channel: "qq",
        chatType: "direct",
        senderId: "qq:STRANGER",
      });
      expect(provider.requests[0]?.tools.map((t) => t.name)).not.toContain("ssh_exec");
      const denied = harness.messages(result.sessionKey).find((m) => m.role === "toolResult");
      expect(JSON.stringify(denied)).toContain("TOOL_DENIED");
    } finally {
      await harness.close();
    }
    void home;
    void workspace;
  });

  it("with a command allowlist from the config, runs only listed commands without shell operators", async () => {
    const { tool } = box({ ssh: { testbox: { allowCommands: ["uname *", "uptime"] } } });
    expect((await run(tool, "uname -a")).isError).toBeFalsy();
    const chained = await run(tool, "uname -a; id");
    expect(chained.isError).toBe(true);
    expect(text(chained)).toContain("shell operators");
    const other = await run(tool, "id");
    expect(other.isError).toBe(true);
    expect(text(other)).toContain('"id" is not in the allowed commands for testbox');
  });

  it("a key the server does not accept, a timeout and a failing command are reported in plain words", async () => {
    const server = sshd as TestSshd;
    const wrongKey = join(server.dir, "wrong_ed25519");
    const { spawnSync } = await import("node:child_process");
    spawnSync("ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-f", wrongKey]);
    const { tool: wrong } = box({ ssh: { testbox: { keyFile: wrongKey } } });
    const denied = await run(wrong, "uname -a");
    expect(text(denied)).toContain(
      `testbox (${server.user}@127.0.0.1:${server.port}) refused the login`,
    );

    // A generous deadline for the real commands (a loaded CI machine takes seconds for an
    // ssh login); the timeout case gets its own short one.
    const { tool: hasty } = box({ timeoutMs: 3000 });
    const slow = await run(hasty, "sleep 30");
    expect(text(slow)).toContain('"sleep 30" on testbox timed out after 3 s');
    const { tool } = box();
    const failing = await run(tool, "exit 3");
    expect(failing.isError).toBe(true);
    expect(text(failing)).toContain("[testbox: exit code 3]");
  });
});
