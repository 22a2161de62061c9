/**
 * The small state files the box rewrites (the owner's clawbox.json through the console
 * and `models pull`, the workspace's seeding state, the MQTT bridge's status) go through
 * the one atomic writer: a symlinked file is written where the link points and the link
 * stays a link, and no temp file is left beside it. (The fsync order itself is watched
 * with strace in writes-survive-power-cut.test.ts.)
 */
import {
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { editConfigFile } from "../../src/config/index.ts";
import { writeStatusFile } from "../../src/mqtt/bridge-status.ts";
import { readStatusFile, statusFilePath } from "../../src/mqtt/index.ts";
import {
  readWorkspaceState,
  workspaceStatePath,
  writeWorkspaceState,
} from "../../src/workspace/index.ts";

let root: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), "clawbox-state-links-"));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

/** Makes `link` a symlink to a file `real` (created with `text`) in another folder. */
function linked(link: string, text: string): string {
  const real = join(root, "elsewhere", "real.json");
  mkdirSync(dirname(real), { recursive: true });
  mkdirSync(dirname(link), { recursive: true });
  writeFileSync(real, text);
  symlinkSync(real, link);
  return real;
}

function leftovers(dir: string): string[] {
  return readdirSync(dir).filter((name) => name.includes(".tmp"));
}

describe("state files written through a symlink", () => {
  it("clawbox.json edited by the console or models pull stays a link to the owner's file", async () => {
    const link = join(root, "home", "clawbox.json");
    const real = linked(link, '{\n  // mine\n  "models": {}\n}\n');
    await editConfigFile(link, [{ path: ["models", "primary"], value: "local" }]);
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(readFileSync(real, "utf8")).toMatch(/"primary": "local"/);
    expect(readFileSync(real, "utf8")).toMatch(/\/\/ mine/);
    expect(leftovers(dirname(link))).toEqual([]);
    expect(leftovers(dirname(real))).toEqual([]);
  });

  it("the workspace state stays a link and reads back", () => {
    const workspace = join(root, "workspace");
    const link = workspaceStatePath(workspace);
    const real = linked(link, "{}\n");
    writeWorkspaceState(workspace, { version: 1, seededAt: "2026-12-01T00:00:00.000Z" });
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(JSON.parse(readFileSync(real, "utf8")).seededAt).toBe("2026-12-01T00:00:00.000Z");
    expect(readWorkspaceState(workspace).seededAt).toBe("2026-12-01T00:00:00.000Z");
    expect(leftovers(dirname(real))).toEqual([]);
  });

  it("the workspace state is created with its folder on a fresh workspace", () => {
    const workspace = join(root, "fresh");
    writeWorkspaceState(workspace, { version: 1, bootstrapCompletedAt: "x" });
    expect(readWorkspaceState(workspace).bootstrapCompletedAt).toBe("x");
    expect(leftovers(join(workspace, ".clawbox"))).toEqual([]);
  });

  it("the MQTT status file stays a link and reads back", () => {
    const home = join(root, "home");
    const link = statusFilePath(home);
    const real = linked(link, "{}\n");
    const status = {
      pid: process.pid,
      broker: "mqtt://127.0.0.1:1883",
      clientId: "clawbox-test",
      state: "connected" as const,
      since: 1,
      connects: 1,
      entities: [],
      removed: [],
      busy: false,
      prompts: { received: 0, rejected: 0, replied: 0, failed: 0 },
      updatedAt: 2,
    };
    writeStatusFile(link, status);
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(JSON.parse(readFileSync(real, "utf8")).clientId).toBe("clawbox-test");
    expect(readStatusFile(link)?.status.state).toBe("connected");
    expect(leftovers(dirname(real))).toEqual([]);
  });
});
