import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { isClawboxError } from "../errors/index.ts";
import { defaultConfig, formatIssue, loadConfig } from "./index.ts";

function tempConfig(text: string): string {
  const dir = mkdtempSync(join(tmpdir(), "clawbox-config-"));
  const file = join(dir, "clawbox.json");
  writeFileSync(file, text);
  return file;
}

describe("loadConfig", () => {
  it("uses the embedded defaults when the file is absent", () => {
    const loaded = loadConfig({ file: "/nonexistent/clawbox.json", env: {} });
    expect(loaded.fileExists).toBe(false);
    expect(loaded.config.server).toEqual({
      host: "127.0.0.1",
      port: 18790,
      allowedHosts: [],
      drainMs: 20_000,
      openaiApi: { enabled: false },
    });
    expect(loaded.config).toEqual(defaultConfig());
  });

  it("accepts JSON5 with comments and trailing commas", () => {
    const file = tempConfig("{ // comment\n server: { port: 1234, }, }");
    expect(loadConfig({ file, env: {} }).config.server.port).toBe(1234);
  });

  it("reports a wrong type as an error and an unknown key as a warning, both with key paths", () => {
    const file = tempConfig('{ server: { port: "eighty" }, mqqt: { url: "x" } }');
    try {
      loadConfig({ file, env: {} });
      expect.unreachable("should have thrown");
    } catch (error) {
      expect(isClawboxError(error, "CONFIG_INVALID")).toBe(true);
      if (!isClawboxError(error)) return;
      expect(error.message).toContain(`${file}: server.port:`);
      const warnings = (error.details?.warnings ?? []) as Parameters<typeof formatIssue>[0][];
      expect(warnings.map(formatIssue)).toEqual([
        `${file}: mqqt: unknown key, ignored (did you mean \`mqtt\`?)`,
      ]);
    }
  });

  it("applies environment overrides for home-level keys", () => {
    const loaded = loadConfig({
      file: "/nonexistent/clawbox.json",
      env: { CLAWBOX_PORT: "9999", CLAWBOX_MODEL_PATH: "/m/x.gguf" },
    });
    expect(loaded.config.server.port).toBe(9999);
    expect(loaded.config.models.providers.local).toMatchObject({
      kind: "local",
      path: "/m/x.gguf",
    });
    expect(loaded.envApplied).toEqual(["CLAWBOX_PORT", "CLAWBOX_MODEL_PATH"]);
  });

  it("names the position of a JSON5 syntax error", () => {
    const file = tempConfig("{ server: { port: 1 ");
    expect(() => loadConfig({ file, env: {} })).toThrow(/not valid JSON5/);
  });
});
