import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { writeTinyGguf } from "../../../test/fixtures/tiny-gguf.ts";
import { runCli } from "../../../test/support/run-cli.ts";

const cli = (args: string[]) => runCli(args, { PATH: process.env.PATH ?? "" });

describe("clawbox context", () => {
  it("prints the report as one JSON object on a fresh home", async () => {
    const home = mkdtempSync(join(tmpdir(), "clawbox-cli-ctx-"));
    try {
      const { code, stdout, stderr } = await cli(["--home", home, "context", "list", "--json"]);
      expect(stderr).toBe("");
      expect(code).toBe(0);
      const report = JSON.parse(stdout);
      for (const key of ["files", "skills", "tools", "history", "budget", "prefixHash"])
        expect(report).toHaveProperty(key);
      const soul = report.files.find((f: { name: string }) => f.name === "SOUL.md");
      expect(soul).toMatchObject({ truncated: false, destination: "system" });
      expect(soul.rawChars).toBeGreaterThan(0);
      expect(soul.injectedChars).toBe(soul.rawChars);
      expect(
        report.files.find((f: { name: string }) => f.name === "BOOTSTRAP.md").destination,
      ).toBe("user");
      expect(report.skills.listed.map((s: { name: string }) => s.name)).toContain("home-assistant");
      expect(report.prefixHash).toMatch(/^[0-9a-f]{16}$/);
      expect(report.budget.contextWindow).toBe(8192);
      const cloud = JSON.parse(
        (await cli(["--home", home, "context", "list", "--json", "--model-kind", "cloud"])).stdout,
      );
      expect(cloud.files.find((f: { name: string }) => f.name === "BOOTSTRAP.md").destination).toBe(
        "system",
      );
      const text = await cli(["--home", home, "context", "detail"]);
      expect(text.stdout).toContain("Bootstrap files:");
      expect(text.stdout).toContain("Sections:");
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });

  it("names an unknown session", async () => {
    const home = mkdtempSync(join(tmpdir(), "clawbox-cli-ctx-"));
    try {
      const { code, stderr } = await cli([
        "--home",
        home,
        "context",
        "list",
        "--session",
        "agent:main:qq:direct:nobody",
      ]);
      expect(code).toBe(2); // not found (the exit-code table)
      expect(stderr).toContain("no session with id, key or name agent:main:qq:direct:nobody");
      const compact = await cli(["--home", home, "compact"]);
      expect(compact.code).toBe(2);
      expect(compact.stderr).toContain("--session NAME is required");
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });

  it("reports the local model's trained context from its GGUF header, capped as a turn sees it", async () => {
    const home = mkdtempSync(join(tmpdir(), "clawbox-cli-ctx-"));
    const windowOf = async (args: string[]) => {
      const out = await cli(["--home", home, "context", "list", "--json", ...args]);
      expect(out.code).toBe(0);
      return JSON.parse(out.stdout).budget.contextWindow as number;
    };
    const configure = (local: Record<string, unknown>) =>
      writeFileSync(
        join(home, "clawbox.json"),
        JSON.stringify({
          models: { primary: "local", providers: { local: { kind: "local", ...local } } },
        }),
      );
    try {
      const small = join(home, "small.gguf");
      const large = join(home, "large.gguf");
      await writeTinyGguf(small, { contextLength: 2048 });
      await writeTinyGguf(large, { contextLength: 32768 });
      configure({ path: small });
      expect(await windowOf([])).toBe(2048);
      configure({ path: large });
      expect(await windowOf([])).toBe(8192);
      configure({ path: large, contextSize: 4096 });
      expect(await windowOf([])).toBe(4096);
      // --model measures for a file as chat --model would use it.
      expect(await windowOf(["--model", small])).toBe(4096);
      configure({});
      expect(await windowOf(["--model", small])).toBe(2048);
      const plan = JSON.parse(
        (await cli(["--home", home, "context", "list", "--json", "--model", small])).stdout,
      ).budget;
      expect(plan.reserve).toBe(512);
      expect(plan.steps.length).toBeGreaterThan(0);
      // The model's own tokenizer (vocab only) by default; --exact loads the whole model,
      // as a turn does, and counts the same.
      expect(plan.exactTokens).toBe(true);
      const exact = await cli([
        "--home",
        home,
        "context",
        "list",
        "--json",
        "--model",
        small,
        "--exact",
      ]);
      expect(exact.code).toBe(0);
      expect(JSON.parse(exact.stdout).budget).toEqual(plan);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });
});
