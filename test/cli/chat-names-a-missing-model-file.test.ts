/**
 * `clawbox chat` says why it cannot answer: `--model /nonexistent.gguf` is refused before
 * any turn as "model file not found" (it ended with "No local model is installed yet …
 * models pull --recommended", the real reason only in a WARN line), a configured model
 * file that is gone is named as missing, and starting a chat indexes no memory (its INFO
 * line used to land right after the first prompt).
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runCli } from "../support/run-cli.ts";
import { CLAWBOX_BIN } from "../support/spawn-cli.ts";

describe("clawbox chat without a usable model", () => {
  it("--model PATH that does not exist: exit 2, the path and the reason, no turn", async () => {
    const home = mkdtempSync(join(tmpdir(), "clawbox-chat-model-"));
    const run = await runCli(["--home", home, "chat", "-m", "hi", "--model", "/nonexistent.gguf"]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("clawbox chat: --model /nonexistent.gguf: model file not found");
    expect(run.stderr).not.toContain("No local model is installed");
    expect(run.stdout).toBe("");
    const notGguf = join(home, "notes.gguf");
    writeFileSync(notGguf, "just text");
    const invalid = await runCli(["--home", home, "chat", "-m", "hi", "--model", notGguf]);
    expect(invalid.code).toBe(1);
    expect(invalid.stderr).toContain(`--model ${notGguf}: `);
  });

  it("a configured model file that is gone is named as missing, not as never installed", async () => {
    const home = mkdtempSync(join(tmpdir(), "clawbox-chat-gone-"));
    writeFileSync(
      join(home, "clawbox.json"),
      '{ models: { providers: { local: { kind: "local", path: "/nonexistent/model.gguf" } } } }',
    );
    const run = await runCli(["--home", home, "chat", "-m", "hi"]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("The local model file is missing");
    expect(run.stderr).toContain("clawbox models use NAME");
    expect(run.stderr).not.toContain("No local model is installed yet");
  });

  it("starting a chat indexes no memory (no log line after the prompt)", async () => {
    const home = mkdtempSync(join(tmpdir(), "clawbox-chat-quiet-"));
    const child = Bun.spawn([CLAWBOX_BIN, "--home", home, "chat"], {
      stdin: new TextEncoder().encode("/help\n"),
      stdout: "pipe",
      stderr: "pipe",
    });
    const stderr = await new Response(child.stderr).text();
    expect(await child.exited).toBe(0);
    expect(stderr).not.toContain("[memory]");
    expect(stderr).not.toContain("memory indexed");
  });
});
