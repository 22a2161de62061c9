/**
 * What the box writes reaches the SD card before it counts as written, seen from
 * outside with strace on the real `bin/clawbox` process (against the fake OpenAI server):
 * - a file the agent writes (here MEMORY.md, through `clawbox chat` and the `write`
 *   tool): the temp file is fsync'ed before the rename over MEMORY.md, and the folder
 *   after it. Without the first, a power cut can leave MEMORY.md empty (the rename is on
 *   disk, the data is not); without the second, the old MEMORY.md can come back.
 * - the conversation in SQLite: every commit is synced to the WAL (synchronous=FULL)
 *   before the next, so an acknowledged message survives a power cut, not only a kill.
 */
import { spawn, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  openaiText,
  openaiToolCall,
  type ScriptedServer,
  startFakeOpenAI,
} from "../fakes/openai-server.ts";
import { cloudOnlyConfig } from "../support/openai-provider-fixture.ts";
import { CLAWBOX_BIN } from "../support/spawn-cli.ts";

const probe = spawnSync("strace", ["-f", "-o", "/dev/null", "true"], { encoding: "utf8" });
const HAVE_STRACE = probe.status === 0;
if (!HAVE_STRACE)
  console.warn(
    `skipping the fsync-before-rename test: strace ${probe.error ? "is not installed (apt-get install strace)" : `cannot trace here: ${probe.stderr.trim()}`}`,
  );

let server: ScriptedServer;
let home: string;
beforeAll(async () => {
  server = await startFakeOpenAI();
  home = mkdtempSync(join(tmpdir(), "clawbox-fsync-"));
  writeFileSync(join(home, "clawbox.json"), JSON.stringify(cloudOnlyConfig(server.url)));
});

/**
 * Runs `clawbox <args>` under strace (`-f -y`: child threads, and file descriptors shown
 * with their paths), writing the trace to `trace`. Spawned without a shell and awaited
 * asynchronously: the fake model server runs in this process.
 */
function traced(
  trace: string,
  syscalls: string,
  args: string[],
): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(
      "strace",
      ["-f", "-yy", "-qq", "-e", syscalls, "-o", trace, CLAWBOX_BIN, ...args],
      {
        env: { ...process.env, CLAWBOX_HOME: home },
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    let stderr = "";
    child.stderr.on("data", (d) => {
      stderr += d;
    });
    child.stdout.resume();
    child.on("exit", (code) => resolve({ code, stderr }));
  });
}
afterAll(async () => {
  await server.close();
  rmSync(home, { recursive: true, force: true });
});

interface Call {
  name: string;
  /** fsync: the path of the file descriptor (strace -y); rename: source and target. */
  paths: string[];
}

/** fsync/fdatasync and rename* calls that succeeded, in the order the kernel saw them. */
function parseTrace(text: string): Call[] {
  const calls: Call[] = [];
  for (const line of text.split("\n")) {
    const m = /^\d+\s+(fsync|fdatasync|rename|renameat|renameat2)\((.*)\)\s+=\s+0$/.exec(line);
    if (!m?.[1] || m[2] === undefined) continue;
    const args = m[2];
    if (m[1].startsWith("f")) {
      const fd = /^\d+<(.*)>$/.exec(args);
      if (fd?.[1]) calls.push({ name: "fsync", paths: [fd[1]] });
    } else {
      const paths = [...args.matchAll(/"((?:[^"\\]|\\.)*)"/g)].map((p) => p[1] ?? "");
      calls.push({ name: "rename", paths });
    }
  }
  return calls;
}

describe.skipIf(!HAVE_STRACE)("writes on an SD card", () => {
  it("fsyncs the new MEMORY.md before renaming it over the old one, then fsyncs the folder", async () => {
    const workspace = join(home, "workspace");
    mkdirSync(workspace, { recursive: true });
    const memoryFile = join(workspace, "MEMORY.md");
    writeFileSync(memoryFile, "# Memory\n\n- old note\n");
    const note = "# Memory\n\n- old note\n- The boiler was serviced on 2026-03-02.\n";
    server.enqueue(
      openaiToolCall("write", JSON.stringify({ path: "MEMORY.md", content: note })),
      openaiText("Noted."),
    );
    const trace = join(home, "strace.log");
    const run = await traced(trace, "trace=fsync,fdatasync,rename,renameat,renameat2", [
      "chat",
      "-m",
      "remember that the boiler was serviced on 2 March",
    ]);
    expect(run.code, run.stderr).toBe(0);
    expect(readFileSync(memoryFile, "utf8")).toBe(note);

    const calls = parseTrace(readFileSync(trace, "utf8"));
    const renameAt = calls.findIndex((c) => c.name === "rename" && c.paths[1] === memoryFile);
    expect(renameAt, "no rename onto MEMORY.md was traced").toBeGreaterThan(0);
    const temp = calls[renameAt]?.paths[0] ?? "";
    expect(temp).toMatch(/\/\.MEMORY\.md\..*\.tmp$/);
    const before = calls.slice(0, renameAt);
    expect(before.some((c) => c.name === "fsync" && c.paths[0] === temp)).toBe(true);
    const after = calls.slice(renameAt + 1);
    expect(after.some((c) => c.name === "fsync" && c.paths[0] === workspace)).toBe(true);
  });

  it("syncs the user's message to the WAL before the model is asked, and every commit after (synchronous=FULL)", async () => {
    server.enqueue(openaiText("The filter was changed in May."));
    const trace = join(home, "strace-wal.log");
    const run = await traced(
      trace,
      "trace=fsync,fdatasync,write,pwrite64,pwritev,pwritev2,sendto,sendmsg,writev",
      ["chat", "-m", "when was the filter changed?"],
    );
    expect(run.code, run.stderr).toBe(0);
    // In order: "w" a write to the WAL, "s" a sync of it, "M" the request to the model.
    const wal = join(home, "clawbox.db-wal");
    const modelPort = new URL(server.url).port;
    const steps = readFileSync(trace, "utf8")
      .split("\n")
      .flatMap((line) => {
        const m = /^\d+\s+(\w+)\(\d+<(TCP:\[[^\]]*\]|[^>]*)>(?:,\s*"([^"]{0,24}))?/.exec(line);
        if (!m) return [];
        const [, call, target, data] = m;
        if (target === wal) return [call === "fsync" || call === "fdatasync" ? "s" : "w"];
        if (target?.endsWith(`:${modelPort}]`) && data?.startsWith("POST ")) return ["M"];
        return [];
      })
      .join("");
    const beforeModel = steps.slice(0, steps.indexOf("M"));
    expect(steps).toContain("M");
    // The turn's user message was written, and synced, before the model call went out.
    expect(beforeModel).toMatch(/w/);
    expect(beforeModel.endsWith("s"), steps).toBe(true);
    // And no commit of the turn is left unsynced: every run of writes ends with a sync.
    expect(steps.replace(/M/g, "")).toMatch(/^(w+s+)+$/);
  });
});
