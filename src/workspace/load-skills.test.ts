import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runtimeLayout } from "../system/index.ts";
import { FileCache } from "./file-cache.ts";
import { loadSkills, processSkillEnvironment, type SkillSource } from "./load-skills.ts";

function skill(dir: string, name: string, body: string): void {
  mkdirSync(join(dir, name), { recursive: true });
  writeFileSync(join(dir, name, "SKILL.md"), body);
}

describe("skills", () => {
  it("applies the six-source precedence and hides skills with unmet requirements", async () => {
    const root = mkdtempSync(join(tmpdir(), "clawbox-skills-"));
    try {
      const sources: SkillSource[] = [
        "extra",
        "bundled",
        "managed",
        "personal",
        "project",
        "workspace",
      ];
      const dirs = sources.map((source) => ({ source, dir: join(root, source) }));
      for (const { source, dir } of dirs)
        skill(dir, "shared", `---\nname: shared\ndescription: from ${source}\n---\nbody`);
      skill(
        join(root, "extra"),
        "needs-env",
        "---\nname: needs-env\ndescription: x\nrequirements:\n  env: [HA_TOKEN]\n---\n",
      );
      skill(
        join(root, "managed"),
        "needs-bin",
        "---\nname: needs-bin\ndescription: x\nrequirements:\n  bins:\n    - definitely-not-a-binary-xyz\n---\n",
      );
      skill(
        join(root, "project"),
        "openclaw-style",
        '---\nname: openclaw-style\ndescription: y\nmetadata: {"openclaw":{"requires":{"env":["HA_TOKEN"]}}}\n---\n',
      );
      skill(join(root, "workspace"), "broken", "no front matter");
      const env = processSkillEnvironment({ PATH: process.env.PATH ?? "" });
      const set = await loadSkills(dirs, new FileCache(), env);
      expect(set.available.map((s) => [s.name, s.description])).toEqual([
        ["shared", "from workspace"],
      ]);
      expect(set.shadowed).toHaveLength(5);
      const hidden = Object.fromEntries(
        set.hidden.map((h) => [h.name.includes("broken") ? "broken" : h.name, h.reason]),
      );
      expect(hidden["needs-env"]).toBe("missing env HA_TOKEN");
      expect(hidden["needs-bin"]).toBe("missing binary definitely-not-a-binary-xyz");
      expect(hidden["openclaw-style"]).toBe("missing env HA_TOKEN");
      expect(hidden.broken).toMatch(/invalid SKILL.md: no front matter/);
      const withToken = await loadSkills(
        dirs,
        new FileCache(),
        processSkillEnvironment({ PATH: process.env.PATH ?? "", HA_TOKEN: "t" }),
      );
      expect(withToken.available.map((s) => s.name)).toEqual([
        "needs-env",
        "openclaw-style",
        "shared",
      ]);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it("reads OpenClaw front matter: multi-line JSON5 metadata hides, folded description kept", async () => {
    const root = mkdtempSync(join(tmpdir(), "clawbox-skills-"));
    try {
      // The shape of OpenClaw's bundled skills (e.g. skills/github/SKILL.md): a multi-line
      // `metadata:` block with trailing commas, and a folded `description: >`.
      skill(
        root,
        "github",
        [
          "---",
          "name: github",
          "description: >",
          "  Interact with GitHub using the gh CLI:",
          "  issues, pull requests and runs.",
          "metadata:",
          "  {",
          '    "openclaw":',
          "      {",
          '        "emoji": "🐙",',
          '        "requires": { "bins": ["definitely-not-gh-xyz"] },',
          "      },",
          "  }",
          "---",
          "# GitHub",
        ].join("\n"),
      );
      skill(
        root,
        "apple-notes",
        [
          "---",
          "name: apple-notes",
          "description: Manage Apple Notes via the memo CLI on macOS.",
          "metadata:",
          "  {",
          '    "openclaw": { "os": ["darwin"], "requires": { "anyBins": ["memo"] } },',
          "  }",
          "---",
        ].join("\n"),
      );
      skill(
        root,
        "weather",
        [
          "---",
          "name: weather",
          "description: |",
          "  Current weather and forecasts.",
          "metadata: { openclaw: { requires: { bins: [sh] } } } # JSON5 keys, a YAML comment",
          "---",
        ].join("\n"),
      );
      const dirs = [{ source: "managed" as const, dir: root }];
      const env = { env: {}, hasBin: (name: string) => name === "sh" || name === "memo" };
      const set = await loadSkills(dirs, new FileCache(), { ...env, platform: "linux" });
      expect(set.available.map((s) => [s.name, s.description])).toEqual([
        ["weather", "Current weather and forecasts."],
      ]);
      const hidden = Object.fromEntries(set.hidden.map((h) => [h.name, h.reason]));
      expect(hidden).toEqual({
        github: "missing binary definitely-not-gh-xyz",
        "apple-notes": "runs on darwin only",
      });
      const withGh = await loadSkills(dirs, new FileCache(), {
        env: {},
        hasBin: () => true,
        platform: "darwin",
      });
      expect(withGh.available.map((s) => [s.name, s.description])).toEqual([
        ["apple-notes", "Manage Apple Notes via the memo CLI on macOS."],
        ["github", "Interact with GitHub using the gh CLI: issues, pull requests and runs."],
        ["weather", "Current weather and forecasts."],
      ]);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it("parses an unchanged SKILL.md once and sees an edit on the next load", async () => {
    const root = mkdtempSync(join(tmpdir(), "clawbox-skills-"));
    try {
      const dir = join(root, "workspace");
      skill(dir, "lights", "---\nname: lights\ndescription: turn lights on\nenv: [HA_URL]\n---\n");
      const cache = new FileCache();
      const env = { env: { HA_URL: "http://ha.local" }, hasBin: () => true };
      const load = async () =>
        (await loadSkills([{ source: "workspace", dir }], cache, env)).available[0];
      const first = await load();
      const second = await load();
      // The same parsed front matter (not a second parse of the same text).
      expect(second?.requires.env).toBe(first?.requires.env);
      skill(
        dir,
        "lights",
        "---\nname: lights\ndescription: turn lights on and off\nenv: [HA_URL]\n---\n",
      );
      const edited = await load();
      expect(edited?.description).toBe("turn lights on and off");
      expect(edited?.requires.env).not.toBe(first?.requires.env);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it("ships bundled skills with valid front matter", async () => {
    const set = await loadSkills(
      [{ source: "bundled", dir: runtimeLayout().skillsDir }],
      new FileCache(),
      {
        env: { HA_TOKEN: "x", HA_URL: "http://ha", MQTT_URL: "mqtt://b" },
        hasBin: () => true,
      },
    );
    expect(set.hidden).toEqual([]);
    expect(set.available.length).toBeGreaterThanOrEqual(2);
  });
});
