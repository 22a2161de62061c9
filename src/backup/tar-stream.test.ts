/**
 * The tar inside a backup: long and Chinese names survive (PAX), a stream cut short is
 * damage, and the reader refuses names that could land outside the staging folder and
 * entries that are not regular files (docs/SECURITY.md, "Backups").
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { readTar, type TarFileEntry, tarStream } from "./tar-stream.ts";

const LONG = `home/workspace/笔记/${"阳台的绣球花".repeat(10)}.md`;

async function* entries(list: { path: string; text: string }[]): AsyncGenerator<TarFileEntry> {
  for (const { path, text } of list) {
    const bytes = new TextEncoder().encode(text);
    yield { path, size: bytes.length, mode: 0o600, mtimeMs: 0, body: [bytes] };
  }
}

async function bytesOf(source: AsyncIterable<Uint8Array>): Promise<Buffer> {
  const parts: Uint8Array[] = [];
  for await (const part of source) parts.push(part);
  return Buffer.concat(parts);
}

async function readAll(tar: Uint8Array) {
  const out: { path: string; text: string }[] = [];
  const source = (async function* () {
    yield tar;
  })();
  for await (const entry of readTar(source)) {
    out.push({ path: entry.path, text: (await bytesOf(entry.body)).toString("utf8") });
  }
  return out;
}

describe("the backup's tar", () => {
  it("round-trips long and Chinese names, and GNU tar reads it too", async () => {
    const list = [
      { path: "clawbox-backup/about.json", text: "{}" },
      { path: LONG, text: "周六早上浇水\n".repeat(200) },
    ];
    const tar = await bytesOf(tarStream(entries(list)));
    expect(await readAll(tar)).toEqual(list);
    const dir = mkdtempSync(join(tmpdir(), "clawbox-tar-"));
    writeFileSync(join(dir, "b.tar"), tar);
    const listed = spawnSync("tar", ["-tf", join(dir, "b.tar")], { encoding: "utf8" });
    expect(listed.stdout.split("\n").filter(Boolean)).toEqual(list.map((e) => e.path));
    spawnSync("tar", ["-xf", join(dir, "b.tar"), "-C", dir]);
    expect(readFileSync(join(dir, LONG), "utf8")).toBe(list[1]?.text);
  });

  it("a stream cut short is damage", async () => {
    const tar = await bytesOf(tarStream(entries([{ path: "home/a", text: "x".repeat(2000) }])));
    await expect(readAll(tar.subarray(0, 1200))).rejects.toThrow(/damaged: it ends/);
  });

  it("refuses names that leave the folder, and links", async () => {
    for (const path of ["home/../../etc/cron.d/x", "/etc/passwd", "home//a", "home/./a"]) {
      const tar = await bytesOf(tarStream(entries([{ path, text: "x" }])));
      await expect(readAll(tar)).rejects.toThrow(/is not allowed/);
    }
    const dir = mkdtempSync(join(tmpdir(), "clawbox-tar-link-"));
    spawnSync("ln", ["-s", "/etc/passwd", join(dir, "link")]);
    spawnSync("tar", ["-cf", join(dir, "l.tar"), "-C", dir, "link"]);
    await expect(readAll(readFileSync(join(dir, "l.tar")))).rejects.toThrow(/not a regular file/);
  });
});
