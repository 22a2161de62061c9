/**
 * `clawbox context list` and `/context list` in a chat report the same thing for the same
 * session and model: the same tools (memory, cron and the TOOLS.md devices included), the
 * same prompt mode and budget, counted with the model's own tokenizer. `--exact` (the
 * whole model loaded) agrees too. Before, the CLI listed 10 tools where a turn offered 13
 * and its estimates chose another prompt mode ("minimal, 1/10" vs "none, 0/10" vs 0/11).
 */
import { appendFileSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { seedWorkspace } from "../../src/workspace/index.ts";
import { runCli } from "../support/run-cli.ts";
import { CLAWBOX_BIN } from "../support/spawn-cli.ts";
import { HAVE_STORIES, STORIES_MODEL } from "../support/stories-model.ts";

const DEVICES = `
## Cameras

- name: porch
  url: http://127.0.0.1:9/porch.jpg
  description: Front porch

## SSH hosts

- name: nas
  host: 127.0.0.1
  user: pi
`;

/** `clawbox chat` with `lines` on stdin (no terminal): what it printed on stdout. */
async function chatLines(home: string, lines: string): Promise<string> {
  const child = Bun.spawn([CLAWBOX_BIN, "--home", home, "chat"], {
    stdin: new TextEncoder().encode(lines),
    stdout: "pipe",
    stderr: "pipe",
    env: { ...process.env },
  });
  const [out, err] = [
    await new Response(child.stdout).text(),
    await new Response(child.stderr).text(),
  ];
  expect(await child.exited, err).toBe(0);
  return out;
}

describe.skipIf(!HAVE_STORIES)("clawbox context list and /context list", () => {
  it("report the same tools, prompt mode and budget for the same session and model", async () => {
    const home = mkdtempSync(join(tmpdir(), "clawbox-ctx-same-"));
    try {
      writeFileSync(
        join(home, "clawbox.json"),
        JSON.stringify({
          models: { providers: { local: { kind: "local", path: STORIES_MODEL, threads: 1 } } },
        }),
      );
      seedWorkspace(join(home, "workspace"));
      appendFileSync(join(home, "workspace", "TOOLS.md"), DEVICES);
      // The chat creates the default session and answers /context list itself.
      const inChat = (await chatLines(home, "/context list\n")).trim();
      const cli = await runCli(["--home", home, "context", "list"]);
      expect(cli.code).toBe(0);
      expect(cli.stdout.trim()).toBe(inChat);
      const exact = await runCli(["--home", home, "context", "list", "--exact"]);
      expect(exact.stdout.trim()).toBe(inChat);

      const report = JSON.parse(
        (await runCli(["--home", home, "context", "list", "--json"])).stdout,
      );
      expect(report.sessionKey).toBe("agent:main:cli:direct:owner");
      expect(report.model).toBe("stories260K");
      expect(report.budget.exactTokens).toBe(true);
      const names = [
        ...report.tools.included.map((t: { name: string }) => t.name),
        ...report.tools.dropped,
      ];
      expect(report.tools.offered).toBe(names.length);
      for (const tool of ["cron", "camera_snapshot", "ssh_exec", "memory_search"])
        expect(names).toContain(tool);
      expect(inChat).toContain(`/${report.tools.offered} schemas`);
      expect(inChat).toContain(`prompt ${report.promptMode})`);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  }, 120_000);

  it("--model-kind cloud without a cloud model says so instead of naming the local file", async () => {
    const home = mkdtempSync(join(tmpdir(), "clawbox-ctx-kind-"));
    try {
      writeFileSync(
        join(home, "clawbox.json"),
        JSON.stringify({
          models: { providers: { local: { kind: "local", path: STORIES_MODEL } } },
        }),
      );
      const cloud = await runCli(["--home", home, "context", "list", "--model-kind", "cloud"]);
      expect(cloud.code).toBe(0);
      expect(cloud.stdout).toMatch(/^Context \(cloud model \(none configured\), /);
      expect(cloud.stdout).not.toContain("stories260K");
      const local = await runCli(["--home", home, "context", "list", "--model-kind", "local"]);
      expect(local.stdout).toMatch(/^Context \(local model stories260K, /);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  }, 60_000);
});
