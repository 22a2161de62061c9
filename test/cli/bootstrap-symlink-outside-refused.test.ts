/**
 * A bootstrap file that is a symlink to a file outside the workspace
 * (`ln -s /etc/passwd workspace/USER.md`) is never injected into the prompt (which may
 * go to a cloud model); `context list` and `doctor` name it as refused.
 */
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createHarness, type Harness, ownerRequest } from "../agent/agent-harness.ts";
import { createFakeProvider } from "../fakes/fake-provider.ts";
import { runCli } from "../support/run-cli.ts";

const dirs: string[] = [];
let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function outsideSecret(): string {
  const dir = mkdtempSync(join(tmpdir(), "clawbox-outside-"));
  dirs.push(dir);
  const file = join(dir, "passwd");
  writeFileSync(file, "root:x:0:0:OUTSIDE-SECRET:/root:/bin/sh\n");
  return file;
}

describe("a bootstrap file linking outside the workspace", () => {
  it("is left out of the prompt", async () => {
    const fake = createFakeProvider({ contextWindow: 64_000, script: [{ text: "hi" }] });
    harness = createHarness({ providers: { fake }, engine: "real" });
    writeFileSync(join(harness.paths.workspace, "AGENTS.md"), "# Agents\nINSIDE-OK\n");
    symlinkSync(outsideSecret(), join(harness.paths.workspace, "USER.md"));
    symlinkSync(outsideSecret(), join(harness.paths.workspace, "MEMORY.md"));
    await harness.agent.chat(ownerRequest("hello"));
    const prompt = fake.requests[0]?.systemPrompt ?? "";
    expect(prompt).toContain("INSIDE-OK");
    expect(prompt).not.toContain("OUTSIDE-SECRET");
  });

  it("is reported by context list and doctor", async () => {
    const home = mkdtempSync(join(tmpdir(), "clawbox-symhome-"));
    dirs.push(home);
    const workspace = join(home, "workspace");
    mkdirSync(workspace, { recursive: true });
    for (const name of ["AGENTS.md", "SOUL.md", "TOOLS.md", "IDENTITY.md", "HEARTBEAT.md"])
      writeFileSync(join(workspace, name), `# ${name}\n`);
    symlinkSync(outsideSecret(), join(workspace, "USER.md"));
    const list = await runCli(["--home", home, "context", "list"]);
    expect(list.stdout).toMatch(/USER\.md\s+refused.*outside the workspace/);
    expect(list.stdout).not.toContain("OUTSIDE-SECRET");
    const doctor = await runCli(["--home", home, "doctor"]);
    expect(`${doctor.stdout}${doctor.stderr}`).toMatch(/bootstrap USER\.md.*outside the workspace/);
  }, 60_000);
});
