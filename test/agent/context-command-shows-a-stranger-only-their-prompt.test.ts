/**
 * Issue 22: `/context detail` sent by a stranger listed USER.md and MEMORY.md with their
 * sizes and destination `system` (they are never in a stranger's prompt) and absolute
 * workspace and skill paths. Now the report is of that stranger's prompt, with paths
 * relative to the workspace; the owner's report is unchanged. The real agent and context
 * engine over a seeded workspace and a skill outside it. A skill without front matter is
 * reported hidden under its path: relative for a stranger too (a later attack found the
 * absolute one there).
 */
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { seedWorkspace } from "../../src/workspace/index.ts";
import { createFakeProvider } from "../fakes/fake-provider.ts";
import { createHarness, type Harness, ownerRequest } from "./agent-harness.ts";

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

/** A path-like token that starts at the root ("/home/…"), as a stranger must never see. */
const ABSOLUTE = /(^|[\s(:"'])\/[A-Za-z0-9._-]+\//m;

describe("/context from a stranger", () => {
  it("reports the stranger's own prompt: no USER.md or MEMORY.md, no absolute paths", async () => {
    harness = createHarness({
      providers: { fake: createFakeProvider({ script: () => ({ text: "ok" }) }) },
      engine: "real",
    });
    const h = harness;
    seedWorkspace(h.paths.workspace);
    writeFileSync(join(h.paths.workspace, "USER.md"), "# USER\n\nThe owner is Ada.\n");
    writeFileSync(join(h.paths.workspace, "MEMORY.md"), "# MEMORY\n\n- The door code is 4711.\n");
    const skill = join(h.paths.workspace, "skills", "weather");
    mkdirSync(skill, { recursive: true });
    writeFileSync(
      join(skill, "SKILL.md"),
      "---\nname: weather\ndescription: Tell the weather.\n---\n\nUse the forecast.\n",
    );
    // A skill without front matter is hidden, and its name in the report is its path.
    mkdirSync(join(h.paths.workspace, "skills", "x"), { recursive: true });
    writeFileSync(
      join(h.paths.workspace, "skills", "x", "SKILL.md"),
      "Just text, no front matter.\n",
    );

    // A prompt file the owner linked out of the workspace: a stranger sees its last two parts only.
    const outside = mkdtempSync(join(tmpdir(), "clawbox-persona-"));
    writeFileSync(join(outside, "soul.md"), "# SOUL\n");
    rmSync(join(h.paths.workspace, "SOUL.md"), { force: true });
    symlinkSync(join(outside, "soul.md"), join(h.paths.workspace, "SOUL.md"));

    const owner = await h.agent.chat(ownerRequest("/context detail"));
    expect(owner.reply).toContain("USER.md");
    expect(owner.reply).toContain("MEMORY.md");
    expect(owner.reply).toContain(h.paths.workspace);
    expect(owner.reply).toContain(`hidden: ${join(h.paths.workspace, "skills", "x", "SKILL.md")}`);

    for (const stranger of [
      { sessionKey: "agent:main:qq:direct:S1", chatType: "direct" as const },
      { sessionKey: "agent:main:qq:group:G1", chatType: "group" as const, groupId: "G1" },
    ]) {
      const result = await h.agent.chat({
        ...stranger,
        text: "/context detail",
        channel: "qq",
        senderId: "qq:S1",
      });
      expect(result.error).toBeUndefined();
      expect(result.reply).toContain("AGENTS.md");
      expect(result.reply).not.toContain("USER.md");
      expect(result.reply).not.toContain("MEMORY.md");
      expect(result.reply).not.toContain(h.paths.workspace);
      expect(result.reply).not.toMatch(ABSOLUTE);
      // Skills they cannot read are not in their prompt, so not in its report (issue 37).
      expect(result.reply).not.toContain("weather");
      expect(result.reply).not.toContain("skills/x/SKILL.md");
      expect(result.reply).toContain(`…/${basename(outside)}/soul.md`);
      expect(result.reply).not.toContain(outside);
    }
    rmSync(outside, { recursive: true, force: true });
  });
});
