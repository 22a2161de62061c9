import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import JSON5 from "json5";
import { afterEach, describe, expect, it } from "vitest";
import { loadConfig } from "../config/index.ts";
import { failureMessage } from "../providers/index.ts";
import { editModelSettings } from "./config-file-edit.ts";
import { loadManifest } from "./manifest.ts";
import { missingModelHint, missingModelPullCommand } from "./missing-model-hint.ts";
import { chatModels, recommendChatModel } from "./recommend-model.ts";

const manifest = loadManifest();
const dirs: string[] = [];
const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), "clawbox-chat-models-"));
  dirs.push(dir);
  return dir;
};
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe("chat models in the manifest", () => {
  it("lists at least three small instruct GGUFs with size, quantization, context, licence, RAM and a pinned sha256", () => {
    const chat = chatModels(manifest);
    expect(chat.length).toBeGreaterThanOrEqual(3);
    for (const m of chat) {
      const file = m.files[0];
      expect(file?.name).toMatch(/\.gguf$/);
      expect(file?.sha256).toMatch(/^[0-9a-f]{64}$/);
      expect(file?.size).toBeGreaterThan(100_000_000);
      expect(file?.size).toBeLessThan(2_000_000_000);
      expect(m.quantization).toMatch(/^Q\d/);
      expect(m.contextLength).toBeGreaterThanOrEqual(8192);
      expect(m.license).toBe("Apache-2.0");
      expect(m.minRamMb).toBeGreaterThan(0);
    }
  });

  it("recommends the most capable model the RAM and free disk allow, and none when nothing fits", () => {
    const pick = (totalRamMb: number, freeDiskMb: number | undefined) =>
      recommendChatModel(manifest, { totalRamMb, freeDiskMb }).model?.name;
    expect(pick(2048, 30_000)).toBe("qwen3-0.6b");
    expect(pick(3000, 30_000)).toBe("qwen2.5-1.5b");
    expect(pick(8192, 30_000)).toBe("qwen3-1.7b");
    expect(pick(8192, 1000)).toBe("qwen3-0.6b");
    expect(pick(8192, undefined)).toBe("qwen3-1.7b");
    const none = recommendChatModel(manifest, { totalRamMb: 1024, freeDiskMb: 30_000 });
    expect(none.model).toBeUndefined();
    expect(none.reason).toContain("1024 MB RAM");
    const rec = recommendChatModel(manifest, { totalRamMb: 4096, freeDiskMb: 30_000 });
    expect(rec.command).toBe("clawbox models pull qwen3-1.7b");
  });

  it("the missing-model reply and hint name the same manifest model, with the exact command", () => {
    const names = chatModels(manifest).map((m) => m.name);
    const dir = tempDir();
    const command = missingModelPullCommand(dir);
    expect(names).toContain(command?.replace("clawbox models pull ", ""));
    expect(missingModelHint(dir)).toContain(`"${command}"`);
    expect(
      failureMessage({ code: "MODEL_NOT_FOUND", details: { pullCommand: command } }),
    ).toContain(`run: ${command}`);
    // Without the provider's detail the reply still gives a command that always works.
    expect(failureMessage({ code: "MODEL_NOT_FOUND" })).toContain(
      "clawbox models pull --recommended",
    );
  });
});

describe("editing the config file", () => {
  it("sets the local model path and keeps the owner's comments and other keys", async () => {
    const file = join(tempDir(), "clawbox.json");
    writeFileSync(
      file,
      [
        "// my box",
        "{",
        "  // keep the server local",
        "  server: { port: 18790 },",
        "  models: {",
        "    primary: 'local', // the only one",
        "    providers: { local: { kind: 'local', threads: 2 } },",
        "  },",
        "}",
        "",
      ].join("\n"),
    );
    await editModelSettings(file, { localPath: "/models/qwen3-0.6b/Qwen3-0.6B-Q8_0.gguf" });
    const text = readFileSync(file, "utf8");
    expect(text).toContain("// my box");
    expect(text).toContain("// keep the server local");
    expect(text).toContain("// the only one");
    const parsed = JSON5.parse(text);
    expect(parsed.models.providers.local).toEqual({
      kind: "local",
      threads: 2,
      path: "/models/qwen3-0.6b/Qwen3-0.6B-Q8_0.gguf",
    });
    expect(parsed.server.port).toBe(18790);
    const loaded = loadConfig({ file, env: {} });
    expect(loaded.config.models.providers.local).toMatchObject({
      path: "/models/qwen3-0.6b/Qwen3-0.6B-Q8_0.gguf",
    });
  });

  it("creates the file when absent and refuses to touch a broken one", async () => {
    const dir = tempDir();
    const file = join(dir, "clawbox.json");
    await editModelSettings(file, { localPath: "/m.gguf", primary: "local", fallbacks: [] });
    expect(JSON5.parse(readFileSync(file, "utf8")).models).toEqual({
      providers: { local: { kind: "local", path: "/m.gguf" } },
      primary: "local",
      fallbacks: [],
    });
    const broken = join(dir, "broken.json");
    writeFileSync(broken, "{ models: [1, 2 }");
    await expect(editModelSettings(broken, { localPath: "/m.gguf" })).rejects.toThrow(
      /not valid JSON5/,
    );
    expect(readFileSync(broken, "utf8")).toBe("{ models: [1, 2 }");
  });
});
