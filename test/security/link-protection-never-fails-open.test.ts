/**
 * Issue 37 item 3: link protection stopped silently after 5,000 files and then failed
 * open. With 5,001 camera snapshots in media/, a link memory/archive →
 * ../notes/private-archive no longer protected its target and a tokenless stranger read a
 * PIN from it. Now the links under the protected names come from a link index kept up to
 * date by watchers (no request walks the tree), and a walk that is cut short fails closed.
 */
import { mkdirSync, realpathSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { LinkIndex, linkIndexFor } from "../../src/workspace/index.ts";
import { type FileToolRig, fileToolRig } from "../support/file-tools.ts";

const STRANGER = { isOwner: false } as const;
let rig: FileToolRig;
let ws: string;

beforeEach(() => {
  rig = fileToolRig();
  ws = rig.workspace;
});
afterEach(() => rig.close());

function snapshots(folder: string, count: number, from = 0): void {
  mkdirSync(join(ws, folder), { recursive: true });
  for (let i = from; i < from + count; i++)
    writeFileSync(join(ws, folder, `cam-front-2026-12-06T${String(i).padStart(6, "0")}.jpg`), "");
}

function privateFolder(rel: string, secret: string): void {
  mkdirSync(join(ws, rel), { recursive: true });
  writeFileSync(join(ws, rel, "pin.txt"), `${secret}\n`);
}

/** The workspace's shared link index (the one the file tools ask). */
const index = () => linkIndexFor(realpathSync(ws), { files: [], dirs: [] });

/** Waits (bounded) until the index's watchers have seen `changes` more events. */
async function watcherSaw(before: number): Promise<void> {
  for (let i = 0; i < 200 && index().generation === before; i++)
    await new Promise((r) => setTimeout(r, 10));
  await new Promise((r) => setTimeout(r, 50)); // the rest of the burst
}

describe("link protection never fails open (issue 37 item 3)", () => {
  it("5,001 snapshots in media/ (and in skills/, memory/): every link's target stays private", async () => {
    // Three protected folders, each past the old 5,000-entry walk, each with a link:
    // whichever order a walk takes, the old code missed at least one.
    privateFolder("notes/private-archive", "PIN 4711");
    privateFolder("notes/cam-keys", "KEY 9876");
    privateFolder("notes/skill-secrets", "TOKEN 5555");
    snapshots("media", 5001);
    snapshots("memory", 5001);
    snapshots("skills", 5001);
    symlinkSync("../notes/private-archive", join(ws, "memory/archive"));
    symlinkSync("../notes/cam-keys", join(ws, "media/keys"));
    symlinkSync("../notes/skill-secrets", join(ws, "skills/secrets"));
    for (const [path, secret] of [
      ["notes/private-archive/pin.txt", "4711"],
      ["notes/cam-keys/pin.txt", "9876"],
      ["notes/skill-secrets/pin.txt", "5555"],
    ] as const) {
      const read = await rig.run("read", { path }, STRANGER);
      expect({ path, ...read }).toMatchObject({ path, isError: true });
      expect(read.text).not.toContain(secret);
      expect((await rig.run("read", { path })).text).toContain(secret);
    }
  });

  it("keeps the set up to date from the watchers: new links count, new snapshots cause no walk", async () => {
    privateFolder("notes/later", "PIN 1234");
    snapshots("media", 50);
    mkdirSync(join(ws, "memory"));
    expect((await rig.run("read", { path: "notes/later/pin.txt" }, STRANGER)).isError).toBe(false);
    const walks = index().walks;

    let before = index().generation;
    snapshots("media", 200, 50);
    await watcherSaw(before);
    expect((await rig.run("read", { path: "notes/ok.md" }, STRANGER)).text).toMatch(
      /not found|no such|ENOENT/i,
    );
    expect(index().walks).toBe(walks);

    before = index().generation;
    mkdirSync(join(ws, "memory/2026"));
    symlinkSync("../../notes/later", join(ws, "memory/2026/later"));
    await watcherSaw(before);
    const read = await rig.run("read", { path: "notes/later/pin.txt" }, STRANGER);
    expect(read.isError).toBe(true);
    expect(read.text).not.toContain("1234");
    expect(index().walks).toBe(walks);
  });

  it("a walk cut short fails closed: a stranger reads nothing until the links are known", async () => {
    writeFileSync(join(ws, "notes.md"), "shopping: milk\n");
    // Deeper than the walk goes: the links below cannot all be known.
    let deep = join(ws, "memory");
    for (let i = 0; i < 40; i++) deep = join(deep, "d");
    mkdirSync(deep, { recursive: true });
    const read = await rig.run("read", { path: "notes.md" }, STRANGER);
    expect(read.isError).toBe(true);
    expect(read.text).toMatch(/could not all be checked/);
    expect((await rig.run("read", { path: "notes.md" })).text).toContain("milk");
  });

  it("the entry bound is a bound: one entry over it leaves the index incomplete", () => {
    snapshots("media", 11);
    const small = new LinkIndex(
      realpathSync(ws),
      { files: [], dirs: ["media"] },
      {
        maxEntries: 10,
        watch: false,
      },
    );
    expect(small.snapshot()).toMatchObject({ complete: false });
    const enough = new LinkIndex(
      realpathSync(ws),
      { files: [], dirs: ["media"] },
      {
        maxEntries: 11,
        watch: false,
      },
    );
    expect(enough.snapshot()).toMatchObject({ complete: true, links: [] });
  });
});
