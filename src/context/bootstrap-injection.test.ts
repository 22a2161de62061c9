import { rmSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { type Fixture, makeFixture } from "../../test/fixtures/engine-fixture.ts";
import { readWorkspaceState } from "../workspace/index.ts";

let fx: Fixture;
afterEach(() => fx?.close());

describe("bootstrap files in the prompt", () => {
  it("injects a 30,000-char SOUL.md at <= 20,000 chars with a marker and leaves the file alone", async () => {
    fx = makeFixture();
    const soul = `${"S".repeat(15000)}MIDDLE${"E".repeat(14994)}`;
    writeFileSync(join(fx.paths.workspace, "SOUL.md"), soul);
    const out = await fx.turn("hi", {
      modelKind: "cloud",
      provider: fx.provider({ contextWindow: 200_000 }),
    });
    const file = out.report?.files.find((f) => f.name === "SOUL.md");
    expect(file).toMatchObject({ rawChars: 30000, truncated: true, destination: "system" });
    expect(file?.injectedChars).toBeLessThanOrEqual(20000);
    expect(file?.injectedChars).toBeGreaterThan(17000);
    expect(out.systemPrompt).toContain(
      "[… SOUL.md truncated: kept 18000 of 30000 chars; read the full file with the read tool …]",
    );
    expect(out.systemPrompt).toContain("S".repeat(14000));
    expect(out.systemPrompt).not.toContain("MIDDLE");
    expect(Bun.file(join(fx.paths.workspace, "SOUL.md")).size).toBe(30000);
  });

  it("reports a missing file instead of skipping it silently", async () => {
    fx = makeFixture();
    rmSync(join(fx.paths.workspace, "USER.md"));
    const out = await fx.turn("hi");
    expect(out.report?.files.find((f) => f.name === "USER.md")).toMatchObject({
      missing: true,
      destination: "excluded",
    });
    expect(out.systemPrompt).toContain("Not present in the workspace: USER.md, MEMORY.md");
  });

  it("uses an edit of TOOLS.md made on disk on the very next turn", async () => {
    fx = makeFixture();
    const path = join(fx.paths.workspace, "TOOLS.md");
    const first = await fx.turn("one");
    expect(first.systemPrompt).not.toContain("garage-cam");
    writeFileSync(
      path,
      "# TOOLS.md\n\n## Cameras\n- name: garage-cam\n  url: http://10.0.0.7/snap.jpg\n",
    );
    const second = await fx.turn("two");
    expect(second.systemPrompt).toContain("garage-cam");
    // Same size and mtime as before the change: the watcher or the stat check still sees it.
    const replaced =
      "# TOOLS.md\n\n## Cameras\n- name: garden-cam\n  url: http://10.0.0.7/snap.jpg\n";
    writeFileSync(path, replaced);
    utimesSync(path, new Date(), new Date(Date.now() + 5000));
    const third = await fx.turn("three");
    expect(third.systemPrompt).toContain("garden-cam");
    expect(third.systemPrompt).not.toContain("garage-cam");
  });

  it("gives subagent runs only the minimal set", async () => {
    fx = makeFixture();
    writeFileSync(join(fx.paths.workspace, "MEMORY.md"), "# Memory\n- likes tea\n");
    const session = fx.session();
    const out = await fx.engine.assemble({
      session,
      provider: fx.provider(),
      modelKind: "local",
      runKind: "subagent",
      tools: [],
      dynamic: { channel: "cli", chatType: "direct", now: Date.now() },
    });
    expect(out.report?.files.map((f) => f.name)).toEqual([
      "AGENTS.md",
      "TOOLS.md",
      "SOUL.md",
      "IDENTITY.md",
      "USER.md",
    ]);
    expect(out.report?.promptMode).toBe("minimal");
    expect(out.systemPrompt).not.toContain("likes tea");
    expect(out.systemPrompt).not.toContain("## Skills");
    expect(out.systemPrompt).not.toContain("## Heartbeats");
  });

  it("exposes the truncated MEMORY.md copy in the report", async () => {
    fx = makeFixture();
    writeFileSync(
      join(fx.paths.workspace, "MEMORY.md"),
      `# Memory\n${"- a fact worth keeping\n".repeat(2000)}`,
    );
    const out = await fx.turn("hi", {
      modelKind: "cloud",
      provider: fx.provider({ contextWindow: 200_000 }),
    });
    expect(out.report?.memory).toMatchObject({ name: "MEMORY.md", truncated: true });
    expect(out.report?.memory?.injectedChars).toBeLessThanOrEqual(20000);
    expect(out.report?.memory?.rawChars).toBeGreaterThan(40000);
  });
});

describe("BOOTSTRAP.md", () => {
  const dest = (out: Awaited<ReturnType<Fixture["turn"]>>) =>
    out.report?.files.find((f) => f.name === "BOOTSTRAP.md")?.destination;

  it("goes to the user prompt for a local model on the first run, and is excluded afterwards", async () => {
    fx = makeFixture();
    const first = await fx.turn("hello");
    expect(dest(first)).toBe("user");
    expect(first.systemPrompt).not.toContain("first-run ritual");
    expect(first.systemPrompt).not.toContain("BOOTSTRAP.md — first run");
    const text = first.pendingMessage?.content as string;
    expect(text.startsWith("[bootstrap pending]")).toBe(true);
    expect(text).toContain("Greet the owner");
    expect(text.endsWith("hello")).toBe(true);
    // The agent stores the message as sent and a reply; the next run is not the first.
    const session = fx.session();
    if (first.pendingMessage)
      fx.store.transcript.append(session.sessionId, {
        type: "message",
        message: first.pendingMessage,
      });
    const second = await fx.turn("again");
    expect(dest(second)).toBe("excluded");
    expect(second.pendingMessage?.content as string).not.toContain("[bootstrap pending]");
  });

  it("is a normal project-context file for a cloud model, excluded once deleted (ritual done)", async () => {
    fx = makeFixture();
    const cloud = fx.provider({ contextWindow: 128_000 });
    const first = await fx.turn("hello", { modelKind: "cloud", provider: cloud });
    expect(dest(first)).toBe("system");
    expect(first.systemPrompt).toContain("## BOOTSTRAP.md");
    expect(first.report?.bootstrapStatus).toBe("pending");
    rmSync(join(fx.paths.workspace, "BOOTSTRAP.md"));
    const after = await fx.turn("next", { modelKind: "cloud", provider: cloud });
    expect(dest(after)).toBe("excluded");
    expect(after.systemPrompt).not.toContain("## BOOTSTRAP.md");
    expect(after.report?.bootstrapStatus).toBe("done");
    expect(readWorkspaceState(fx.paths.workspace).bootstrapCompletedAt).toBeTypeOf("string");
  });

  it("replaces the ritual by a limited note when the workspace is unreachable", async () => {
    fx = makeFixture();
    rmSync(fx.paths.workspace, { recursive: true });
    const out = await fx.turn("hello");
    expect(out.report?.workspace.reachable).toBe(false);
    expect(out.pendingMessage?.content as string).toContain(
      "The workspace is not reachable right now",
    );
    expect(out.systemPrompt).toContain("The workspace is not reachable right now");
  });
});
