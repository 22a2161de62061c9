/**
 * `npm run mutation` itself, on a throwaway git repository (never this tree: it edits
 * source files while it runs): a mutant its tests notice is killed, one they miss is
 * reported as a survivor with its guarantee, a snippet that is no longer in the file is
 * an error (stale list) rather than a skip, an explained survivor does not fail the run,
 * every file is restored byte for byte (also when the runner is stopped with SIGTERM mid-
 * run), and it refuses to start while a target file has uncommitted changes.
 */
import { spawn, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";

const ROOT = join(import.meta.dirname, "..", "..");
const RUNNER = join(ROOT, "scripts", "mutation", "run.ts");

const SOURCE = `export function clamp(n: number, max: number): number {
  if (n > max) return max;
  return n;
}

export function label(n: number): string {
  return n < 0 ? "negative" : "other";
}
`;

const TEST = `import { expect, it } from "vitest";
import { clamp, label } from "./clamp.ts";

it("clamps", () => {
  if (process.env.SLOW_TEST) Bun.sleepSync(Number(process.env.SLOW_TEST));
  expect(clamp(5, 3)).toBe(3);
  expect(clamp(1, 3)).toBe(1);
  expect(label(-1)).toBe("negative");
});
`;

const mutant = (id: string, find: string, replace: string, extra: object = {}) => ({
  id,
  area: "tools",
  file: "src/clamp.ts",
  find,
  replace,
  doc: "docs/GUARANTEES.md",
  guarantee: `guarantee of ${id}`,
  tests: ["src/clamp.test.ts"],
  ...extra,
});

const repos: string[] = [];
afterEach(() => {
  for (const dir of repos.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function repo(mutants: object[]): string {
  const dir = mkdtempSync(join(tmpdir(), "clawbox-mutation-"));
  repos.push(dir);
  mkdirSync(join(dir, "src"));
  mkdirSync(join(dir, "docs"));
  writeFileSync(join(dir, "src", "clamp.ts"), SOURCE);
  writeFileSync(join(dir, "src", "clamp.test.ts"), TEST);
  writeFileSync(join(dir, "docs", "GUARANTEES.md"), "# Guarantees\n");
  writeFileSync(join(dir, "mutants.json"), JSON.stringify(mutants));
  writeFileSync(join(dir, ".gitignore"), "node_modules\n");
  symlinkSync(join(ROOT, "node_modules"), join(dir, "node_modules"));
  const git = (...args: string[]) =>
    spawnSync("git", args, { cwd: dir, encoding: "utf8", env: { ...process.env, HOME: dir } });
  git("init", "-q");
  git("add", "-A");
  git("-c", "user.name=t", "-c", "user.email=t@example.invalid", "commit", "-qm", "init");
  return dir;
}

function run(dir: string, env: Record<string, string> = {}) {
  const args = [RUNNER, "--json", "--root", dir, "--list", join(dir, "mutants.json")];
  return spawnSync(process.execPath, args, {
    cwd: dir,
    encoding: "utf8",
    env: { ...process.env, ...env },
    timeout: 120_000,
  });
}

describe("the mutation runner", () => {
  it("reports killed, survived and stale mutants and restores the source byte for byte", () => {
    const dir = repo([
      mutant("clamp-bound", "if (n > max) return max;", "if (n > max * 2) return max;"),
      mutant("label-zero", 'n < 0 ? "negative"', 'n <= 0 ? "negative"'),
      mutant("gone", "if (n >= max) return max;", "return n;"),
    ]);
    const result = run(dir);
    expect(result.status, result.stderr).toBe(1);
    const summary = JSON.parse(result.stdout);
    expect(summary).toMatchObject({
      mutants: 3,
      killed: 1,
      survived: [
        { id: "label-zero", guarantee: "guarantee of label-zero", doc: "docs/GUARANTEES.md" },
      ],
      errors: [{ id: "gone", error: expect.stringContaining("snippet not found") }],
      killRate: 0.5,
    });
    expect(readFileSync(join(dir, "src", "clamp.ts"), "utf8")).toBe(SOURCE);
    const status = spawnSync("git", ["status", "--porcelain"], { cwd: dir, encoding: "utf8" });
    expect(status.stdout).toBe("");
  });

  it("passes with only an explained survivor, and refuses to start on uncommitted changes", () => {
    const dir = repo([
      mutant("label-zero", 'n < 0 ? "negative"', 'n <= 0 ? "negative"', {
        explained: "docs/GUARANTEES.md: zero is not covered on purpose",
      }),
    ]);
    const ok = run(dir);
    expect(ok.status, ok.stderr).toBe(0);
    expect(JSON.parse(ok.stdout).survived[0].explained).toContain("on purpose");

    const edited = `${SOURCE}// work in progress\n`;
    writeFileSync(join(dir, "src", "clamp.ts"), edited);
    const refused = run(dir);
    expect(refused.status).toBe(1);
    expect(refused.stderr).toContain("refusing to start: uncommitted changes in src/clamp.ts");
    expect(readFileSync(join(dir, "src", "clamp.ts"), "utf8")).toBe(edited);
  });

  it("restores the file when stopped with SIGTERM while a mutant's tests run", async () => {
    const dir = repo([mutant("clamp-bound", "if (n > max) return max;", "return n;")]);
    const child = spawn(
      process.execPath,
      [RUNNER, "--no-baseline", "--root", dir, "--list", join(dir, "mutants.json")],
      { cwd: dir, env: { ...process.env, SLOW_TEST: "20000" }, stdio: ["ignore", "pipe", "pipe"] },
    );
    const file = join(dir, "src", "clamp.ts");
    const deadline = Date.now() + 30_000;
    while (readFileSync(file, "utf8") === SOURCE && Date.now() < deadline) await Bun.sleep(50);
    expect(readFileSync(file, "utf8")).toContain("return n;\n  return n;");
    const exited = new Promise<number | null>((resolve) => child.on("exit", resolve));
    child.kill("SIGTERM");
    expect(await exited).toBe(130);
    expect(readFileSync(file, "utf8")).toBe(SOURCE);
  });
});
