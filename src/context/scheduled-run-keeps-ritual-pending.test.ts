import { existsSync, rmSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { type Fixture, makeFixture } from "../../test/fixtures/engine-fixture.ts";
import { readWorkspaceState, writeWorkspaceState } from "../workspace/index.ts";

let fx: Fixture;
afterEach(() => fx?.close());

describe("a scheduled run and the first-run ritual", () => {
  it("a reminder's turn (minimal prompt, no BOOTSTRAP.md in it) leaves the ritual pending", async () => {
    fx = makeFixture();
    const web = fx.session("agent:main:web:direct:token");
    const out = await fx.turn("Reminder: water the plants", { session: web, runKind: "cron" });
    expect(out.report?.files.some((f) => f.name === "BOOTSTRAP.md")).toBe(false);
    expect(out.report?.bootstrapStatus).toBe("pending");
    expect(existsSync(join(fx.paths.workspace, "BOOTSTRAP.md"))).toBe(true);
    expect(readWorkspaceState(fx.paths.workspace).bootstrapCompletedAt).toBeUndefined();
    const heartbeat = await fx.turn("heartbeat", { session: web, runKind: "heartbeat" });
    expect(heartbeat.report?.bootstrapStatus).toBe("pending");
    expect(readWorkspaceState(fx.paths.workspace).bootstrapCompletedAt).toBeUndefined();
  });

  it("a scheduled run does not record the ritual even once the file is gone; the owner's turn does", async () => {
    fx = makeFixture();
    rmSync(join(fx.paths.workspace, "BOOTSTRAP.md"));
    const cron = await fx.turn("Reminder", { runKind: "cron" });
    expect(cron.report?.bootstrapStatus).toBe("done");
    expect(readWorkspaceState(fx.paths.workspace).bootstrapCompletedAt).toBeUndefined();
    await fx.turn("hello");
    expect(readWorkspaceState(fx.paths.workspace).bootstrapCompletedAt).toBeTypeOf("string");
  });

  it("takes back a completion recorded while BOOTSTRAP.md is still there", async () => {
    fx = makeFixture();
    const state = readWorkspaceState(fx.paths.workspace);
    writeWorkspaceState(fx.paths.workspace, {
      ...state,
      bootstrapCompletedAt: "2026-12-01T00:00:00Z",
    });
    const out = await fx.turn("hello");
    expect(out.report?.bootstrapStatus).toBe("pending");
    expect(readWorkspaceState(fx.paths.workspace).bootstrapCompletedAt).toBeUndefined();
  });
});
