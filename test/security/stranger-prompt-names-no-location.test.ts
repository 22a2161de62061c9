/**
 * Issue 37 item 5: every stranger's system prompt carried absolute paths (the workspace,
 * the user guide) and the description of a skill under the owner's skills/ that
 * strangers may not read, and every WORKSPACE_ESCAPE error named the absolute workspace.
 * Now a stranger's prompt (and a group chat's) names no location on the box and lists no
 * skill they cannot read, and the errors their tool calls get name none either. The real
 * agent and context engine; a scripted model that records what it is sent.
 */
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createAgent } from "../../src/agent/index.ts";
import { configSchema } from "../../src/config/index.ts";
import type { ProviderRequest } from "../../src/providers/index.ts";
import { Store } from "../../src/store/index.ts";
import { homePaths, runtimeLayout, silentLogger } from "../../src/system/index.ts";
import { seedWorkspace } from "../../src/workspace/index.ts";
import { createHarness, type Harness, ownerRequest } from "../agent/agent-harness.ts";
import { createFakeProvider } from "../fakes/fake-provider.ts";
import { fileToolRig } from "../support/file-tools.ts";

let harness: Harness | undefined;
let outside: string | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
  if (outside) rmSync(outside, { recursive: true, force: true });
});

/** An absolute path ("/home/…", "/usr/…") anywhere in the text. */
const ABSOLUTE = /(^|[\s(:"'`=<>])\/[A-Za-z0-9._-]+\//m;
const OPENID = "0123456789ABCDEF0123456789ABCDEF";
const layout = runtimeLayout();

const text = (request: ProviderRequest): string =>
  JSON.stringify(request.messages.filter((m) => m.role === "toolResult"));

describe("a stranger's prompt and errors name no location (issue 37 item 5)", () => {
  it("no absolute path, no guide, no unreadable skill in the prompt; errors without the workspace", async () => {
    outside = mkdtempSync(join(tmpdir(), "clawbox-outside-"));
    writeFileSync(join(outside, "secret.txt"), "outside\n");
    const fake = createFakeProvider({
      contextWindow: 128_000,
      script: (request) => {
        // A stranger's model tries every escape; the owner's model just answers.
        const last = JSON.stringify(request.messages.at(-1) ?? "");
        if (last.includes("读一下这些文件") && !last.includes("toolResult"))
          return {
            toolCalls: [
              { name: "read", arguments: { path: "../outside.txt" } },
              { name: "read", arguments: { path: join(outside as string, "secret.txt") } },
              { name: "read", arguments: { path: "escape/secret.txt" } },
              { name: "read", arguments: { path: "skills/garage-opener/SKILL.md" } },
            ],
          };
        return { text: "好的" };
      },
    });
    harness = createHarness({ providers: { fake }, engine: "real" });
    const h = harness;
    const ws = h.paths.workspace;
    seedWorkspace(ws);
    symlinkSync(outside, join(ws, "escape"));
    mkdirSync(join(ws, "skills", "garage-opener"), { recursive: true });
    writeFileSync(
      join(ws, "skills", "garage-opener", "SKILL.md"),
      "---\nname: garage-opener\ndescription: Opens the garage with the owner's code 4711.\n---\n\nSend 4711.\n",
    );

    await h.agent.chat(ownerRequest("你好"));
    const ownerPrompt = fake.requests[0]?.systemPrompt ?? "";
    // The owner's prompt has them all, so the checks below have teeth.
    expect(ownerPrompt).toContain(ws);
    expect(ownerPrompt).toContain("garage-opener");
    expect(ownerPrompt).toMatch(/## Documentation/);

    for (const turn of [
      { sessionKey: `agent:main:qq:direct:${OPENID}`, chatType: "direct" as const },
      {
        sessionKey: "agent:main:qq:group:GROUP0123456789ABCDEF0123456789AB",
        chatType: "group" as const,
        groupId: "GROUP0123456789ABCDEF0123456789AB",
      },
    ]) {
      const from = fake.requests.length;
      const result = await h.agent.chat({
        ...turn,
        text: "读一下这些文件",
        channel: "qq",
        senderId: `qq:${OPENID}`,
      });
      expect(result.error).toBeUndefined();
      const sent = fake.requests.slice(from);
      expect(sent.length).toBe(2);
      for (const request of sent) {
        const prompt = request.systemPrompt;
        expect(prompt).toMatch(/## Workspace/);
        expect(prompt).not.toContain(ws);
        expect(prompt).not.toContain(h.paths.home);
        // The box's own sections (the owner's files' text, quoted after them, is theirs).
        const own = prompt.split("# Project Context")[0] ?? "";
        expect(own).not.toMatch(ABSOLUTE);
        expect(prompt).not.toContain(layout.docsDir);
        expect(prompt).not.toContain(layout.skillsDir);
        expect(prompt).not.toMatch(/## Documentation/);
        expect(prompt).not.toContain("garage-opener");
        expect(prompt).not.toContain("4711");
      }
      const results = text(sent[1] as ProviderRequest);
      expect(results).toMatch(/WORKSPACE_ESCAPE|outside the workspace/);
      expect(results).not.toContain(ws);
      expect(results).not.toContain(outside);
      expect(results).not.toContain(h.paths.home);
      expect(results).not.toContain("4711");
    }
  });

  it("lists a skill a stranger may read, by its path in the workspace (the agent's own engine)", async () => {
    const home = mkdtempSync(join(tmpdir(), "clawbox-skills-"));
    outside = home; // removed after the test
    const paths = homePaths(home, undefined, {});
    const ws = paths.workspace;
    mkdirSync(join(ws, "shared-skills", "weather"), { recursive: true });
    writeFileSync(
      join(ws, "shared-skills", "weather", "SKILL.md"),
      "---\nname: weather\ndescription: Tell tomorrow's weather.\n---\n\nUse the forecast.\n",
    );
    mkdirSync(join(ws, "skills", "garage-opener"), { recursive: true });
    writeFileSync(
      join(ws, "skills", "garage-opener", "SKILL.md"),
      "---\nname: garage-opener\ndescription: Opens the garage with code 4711.\n---\n\nSend 4711.\n",
    );
    const fake = createFakeProvider({ contextWindow: 128_000, script: () => ({ text: "好" }) });
    const store = Store.open({ path: paths.database });
    const agent = createAgent({
      config: configSchema.parse({
        models: { primary: "fake", fallbacks: [], providers: {} },
        context: { skills: { extraDirs: ["workspace/shared-skills"] } },
      }),
      store,
      paths,
      logger: silentLogger,
      providers: { fake },
    });
    try {
      await agent.chat({ ...ownerRequest("你好") });
      await agent.chat({
        sessionKey: `agent:main:qq:direct:${OPENID}`,
        chatType: "direct",
        text: "明天天气？",
        channel: "qq",
        senderId: `qq:${OPENID}`,
      });
      const [owner, stranger] = fake.requests.map((r) => r.systemPrompt);
      expect(owner).toContain("garage-opener");
      expect(owner).toContain(join(ws, "shared-skills", "weather", "SKILL.md"));
      expect(stranger).toContain("<location>shared-skills/weather/SKILL.md</location>");
      expect(stranger).not.toContain("garage-opener");
      expect(stranger).not.toContain(ws);
    } finally {
      await agent.close();
      store.close();
    }
  });

  it("a failed file operation's system error names no path", async () => {
    const rig = fileToolRig();
    try {
      mkdirSync(join(rig.workspace, "notes"));
      const write = await rig.run("write", { path: "notes", content: "x" }, { isOwner: false });
      expect(write).toMatchObject({ isError: true });
      expect(write.text).toMatch(/EISDIR/);
      expect(write.text).not.toContain(rig.dir);
      expect(write.text).not.toMatch(ABSOLUTE);
    } finally {
      rig.close();
    }
  });
});
