import { closeSync, mkdtempSync, openSync, statSync, writeFileSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { Store } from "../../src/store/index.ts";
import { runCli } from "../support/run-cli.ts";
import { startService } from "../support/run-service.ts";

function homeWithDb(bytes: string): { home: string; db: string } {
  const home = mkdtempSync(join(tmpdir(), "clawbox-dmg-"));
  const db = join(home, "clawbox.db");
  writeFileSync(db, bytes);
  return { home, db };
}

describe("an empty clawbox.db", () => {
  it("is refused with what to do, and never recreated", async () => {
    const { home, db } = homeWithDb("");
    for (const args of [
      ["chat", "-m", "hello"],
      ["sessions", "list"],
    ]) {
      const run = await runCli(["--home", home, ...args]);
      expect(run.code).toBe(1);
      expect(run.stderr).toContain(`the database ${db} is empty (0 bytes)`);
      expect(run.stderr).toContain("restore clawbox.db from a backup");
    }
    expect(statSync(db).size).toBe(0);
  });
});

describe("a clawbox.db that is not a database", () => {
  it("gives run, chat, sessions and memory the same plain line as doctor, no stack trace", async () => {
    const { home, db } = homeWithDb("garbage ".repeat(4096));
    const doctor = await runCli(["--home", home, "doctor"]);
    const expected = `the database ${db} is damaged (file is not a database)`;
    expect(doctor.stdout + doctor.stderr).toContain(expected);
    for (const args of [
      ["run", "--port", "0"],
      ["chat", "-m", "hello"],
      ["sessions", "list"],
      ["memory", "status"],
    ]) {
      const run = await runCli(["--home", home, ...args]);
      expect(run.code).toBe(1);
      expect(run.stderr).toContain(`clawbox ${args[0]}: ${expected}`);
      expect(run.stderr).not.toMatch(/\n\s+at /);
    }
  });
});

describe("a clawbox.db with a damaged page", () => {
  it("starts the service, but /health reports the quick_check failure", async () => {
    const home = mkdtempSync(join(tmpdir(), "clawbox-dmg-"));
    const db = join(home, "clawbox.db");
    const store = Store.open({ path: db });
    store.db.run("CREATE TABLE filler (id INTEGER PRIMARY KEY, body TEXT)");
    for (let i = 0; i < 200; i++)
      store.db.run("INSERT INTO filler(body) VALUES (?)", ["x".repeat(1000)]);
    const pages = (store.db.query("PRAGMA page_count").get() as { page_count: number }).page_count;
    const pageSize = (store.db.query("PRAGMA page_size").get() as { page_size: number }).page_size;
    store.close();
    // Scribble over a leaf page of the filler table (the last rows went into the last pages).
    const fd = openSync(db, "r+");
    writeSync(fd, Buffer.alloc(pageSize, 0x5a), 0, pageSize, (pages - 2) * pageSize);
    closeSync(fd);

    const chat = await runCli(["--home", home, "chat", "-m", "hello"]);
    expect(chat.code).toBe(1);
    expect(chat.stderr).toContain(`the database ${db} is damaged (quick_check:`);

    const service = await startService(["--port", "0"], { CLAWBOX_HOME: home });
    try {
      const health = (await (await fetch(`${service.url}/health`)).json()) as {
        status: string;
        db: { ok: boolean; detail: string };
      };
      expect(health.status).toBe("degraded");
      expect(health.db.ok).toBe(false);
      expect(health.db.detail).toContain("quick_check at start");
    } finally {
      service.child.kill("SIGTERM");
      await service.exited;
    }
  }, 90_000);
});
