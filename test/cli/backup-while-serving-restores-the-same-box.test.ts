/**
 * docs/BACKUP.md, "What a backup holds": a backup made with `clawbox backup create`
 * while `clawbox run` answers chat turns, restored with `clawbox backup restore` onto a
 * fresh home, gives the same sessions, transcripts, memory index, owners, reminders,
 * follow-ups and pairing requests (row counts and content hashes of every table equal),
 * and the file holds none of the config's secrets, nor any content, in plain text
 * (docs/SECURITY.md, "Backups").
 */
import { Database } from "bun:sqlite";
import { createHash } from "node:crypto";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { openaiText, startFakeOpenAI } from "../fakes/openai-server.ts";
import { cloudOnlyConfig, openaiProviderConfig } from "../support/openai-provider-fixture.ts";
import { startService } from "../support/run-service.ts";
import { spawnCli } from "../support/spawn-cli.ts";

const TOKEN = "srv-token-7c2f9e14b08a4d5e";
const API_KEY = "sk-backup-test-5f1c0a9e7d3b2468ace0";
const QQ_OWNER = `qq:${"a1b2c3d4e5f60718293a4b5c6d7e8f90"}`;
const MEMORY_TEXT = "主人喜欢在周六早上给阳台的绣球花浇水，水壶在洗衣机旁边。";

/** Every row of every ordinary table, as sorted JSON lines (virtual tables are read through their shadow tables). */
function tableRows(file: string): Map<string, string[]> {
  const db = new Database(file, { readonly: true });
  try {
    const tables = db
      .query(
        "SELECT name FROM sqlite_schema WHERE type = 'table' AND sql NOT LIKE 'CREATE VIRTUAL TABLE%' ORDER BY name",
      )
      .all() as { name: string }[];
    const rows = new Map<string, string[]>();
    for (const { name } of tables) {
      const all = db.query(`SELECT * FROM "${name}"`).all() as Record<string, unknown>[];
      rows.set(
        name,
        all
          .map((row) =>
            JSON.stringify(row, (_k, v) =>
              v instanceof Uint8Array ? Buffer.from(v).toString("hex") : v,
            ),
          )
          .sort(),
      );
    }
    return rows;
  } finally {
    db.close();
  }
}

const digest = (rows: string[]) =>
  `${rows.length}:${createHash("sha256").update(rows.join("\n")).digest("hex")}`;

function sqlite(file: string, sql: string, params: (string | number)[] = []): void {
  const db = new Database(file);
  try {
    db.run(sql, params);
  } finally {
    db.close();
  }
}

describe("clawbox backup create while clawbox run serves, restored on a fresh home", () => {
  it("restores the same rows in every table and keeps every secret out of the file's plain bytes", async () => {
    const model = await startFakeOpenAI(() => openaiText("绣球花今天已经浇过水了。"));
    const root = mkdtempSync(join(tmpdir(), "clawbox-backup-serving-"));
    const homeA = join(root, "box-a");
    const homeB = join(root, "box-b");
    mkdirSync(homeA);
    mkdirSync(homeB);
    const passFile = join(root, "passphrase");
    writeFileSync(passFile, "绣球花 correct horse battery\n");
    const config = cloudOnlyConfig(model.url, {
      server: { token: TOKEN },
      agent: { owners: [QQ_OWNER, "wecom:ZhangSan"] },
      memory: { enabled: true, embedding: { model: "none" } },
    });
    config.models.providers.cloud = openaiProviderConfig(model.url, {
      timeoutMs: 30_000,
      authProfiles: [{ id: "main", apiKey: API_KEY }],
    });
    writeFileSync(join(homeA, "clawbox.json"), JSON.stringify(config, null, 2));
    mkdirSync(join(homeA, "workspace"));
    writeFileSync(join(homeA, "workspace", "MEMORY.md"), `# 记忆\n\n${MEMORY_TEXT}\n`);
    const env = { CLAWBOX_HOME: homeA, CLAWBOX_CONFIG: "" };

    // Box A's state besides chat: the memory index, a reminder, a follow-up, a pairing request.
    expect((await spawnCli(["memory", "index"], env)).code).toBe(0);
    expect((await spawnCli(["cron", "add", "给绣球花浇水", "--every", "1d"], env)).code).toBe(0);
    const dbA = join(homeA, "clawbox.db");
    const day = 86_400_000;
    const far = Date.now() + 30 * day;
    sqlite(
      dbA,
      "INSERT INTO followups(session_key, text, due_at, origin, created_at) VALUES (?, ?, ?, ?, ?)",
      ["agent:main:main", "问问绣球花开了没有", far, '{"channel":"cli"}', Date.now()],
    );
    sqlite(
      dbA,
      "INSERT INTO pairing_requests(code, channel, chat_type, sender_id, owner_id, message_id, created_at, expires_at, replied_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
      [
        "KX7P2Q",
        "qq",
        "direct",
        "0f".repeat(16),
        `qq:${"0f".repeat(16)}`,
        "m1",
        Date.now(),
        far,
        Date.now(),
      ],
    );

    const service = await startService(["--port", "0"], env);
    const ask = async (session: string, message: string) => {
      const res = await fetch(`${service.url}/api/chat`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${TOKEN}` },
        body: JSON.stringify({ message, session }),
      });
      expect(res.status).toBe(200);
      return (await res.json()) as { reply?: string };
    };
    const backupFile = join(root, "box-a.age");
    let turnsDuringBackup = 0;
    let before: Map<string, string[]>;
    try {
      for (const session of ["balcony", "kitchen", "balcony"])
        expect((await ask(session, "绣球花浇水了吗？")).reply).toBe("绣球花今天已经浇过水了。");
      await ask("busy", "第一句");
      before = tableRows(dbA);

      // Turns keep coming in one session while the backup is made.
      let creating = true;
      const traffic = (async () => {
        let n = 0;
        while (creating) {
          await ask("busy", `第 ${n} 句`);
          n += 1;
          turnsDuringBackup += 1;
        }
      })();
      const turnsAtStart = turnsDuringBackup;
      const created = await spawnCli(
        ["backup", "create", "-o", backupFile, "--passphrase-file", passFile],
        env,
        120_000,
      );
      turnsDuringBackup -= turnsAtStart;
      creating = false;
      await traffic;
      expect(created.stderr).toBe("");
      expect(created.code).toBe(0);
      expect(created.stdout).toContain(`backup written to ${backupFile}`);
      // The service answered while the backup was made (and nothing failed).
      expect(turnsDuringBackup).toBeGreaterThan(0);
    } finally {
      service.child.kill("SIGTERM");
      await service.exited;
      await model.close();
    }
    const after = tableRows(dbA);

    const restored = await spawnCli(
      ["backup", "restore", backupFile, "--passphrase-file", passFile],
      { CLAWBOX_HOME: homeB, CLAWBOX_CONFIG: "" },
      120_000,
    );
    expect(restored.stderr).toBe("");
    expect(restored.code).toBe(0);
    // The fresh (empty) home was replaced; nothing else was left beside it.
    expect(readdirSync(root).sort()).toEqual(["box-a", "box-a.age", "box-b", "passphrase"]);

    const dbB = join(homeB, "clawbox.db");
    const check = new Database(dbB, { readonly: true });
    expect(check.query("PRAGMA integrity_check").get()).toEqual({ integrity_check: "ok" });
    check.close();
    const restoredRows = tableRows(dbB);
    expect([...restoredRows.keys()]).toEqual([...after.keys()]);

    // Tables the traffic did not touch are equal row for row; the ones the issue names are among them.
    const quiet = [...after.keys()].filter(
      (t) => digest(before.get(t) ?? []) === digest(after.get(t) ?? []),
    );
    for (const table of [
      "memory_files",
      "memory_chunks",
      "cron_jobs",
      "followups",
      "pairing_requests",
    ]) {
      expect(quiet).toContain(table);
      expect((after.get(table) ?? []).length).toBeGreaterThan(0);
    }
    for (const table of quiet)
      expect({ table, rows: digest(restoredRows.get(table) ?? []) }).toEqual({
        table,
        rows: digest(after.get(table) ?? []),
      });

    // Transcripts: everything said before the backup began is there, and nothing that
    // box A never had (the backup is one consistent moment of the busy session).
    const entriesBefore = before.get("transcript_entries") ?? [];
    const entriesAfter = new Set(after.get("transcript_entries"));
    const entriesRestored = restoredRows.get("transcript_entries") ?? [];
    expect(entriesRestored.filter((row) => !entriesAfter.has(row))).toEqual([]);
    const restoredSet = new Set(entriesRestored);
    expect(entriesBefore.filter((row) => !restoredSet.has(row))).toEqual([]);
    // Sessions: the same ones; those the traffic did not touch, identical.
    const ids = (rows: string[] | undefined) =>
      (rows ?? []).map((r) => (JSON.parse(r) as { session_id: string }).session_id).sort();
    expect(ids(restoredRows.get("sessions"))).toEqual(ids(after.get("sessions")));
    const untouched = (before.get("sessions") ?? []).filter((r) =>
      (after.get("sessions") ?? []).includes(r),
    );
    expect(untouched.length).toBeGreaterThanOrEqual(2);
    for (const row of untouched) expect(restoredRows.get("sessions")).toContain(row);

    // One consistent moment: every session's leaf entry is there, and every entry's parent.
    const db = new Database(dbB, { readonly: true });
    expect(
      db
        .query(
          "SELECT s.session_id FROM sessions s WHERE s.leaf_id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM transcript_entries e WHERE e.session_id = s.session_id AND e.id = s.leaf_id)",
        )
        .all(),
    ).toEqual([]);
    expect(
      db
        .query(
          "SELECT e.id FROM transcript_entries e WHERE e.parent_id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM transcript_entries p WHERE p.session_id = e.session_id AND p.id = e.parent_id)",
        )
        .all(),
    ).toEqual([]);
    db.close();

    // Owners (agent.owners), the config's secrets, the console secret and the workspace.
    for (const file of ["clawbox.json", "console-secret", "workspace/MEMORY.md"])
      expect(readFileSync(join(homeB, file), "utf8")).toBe(readFileSync(join(homeA, file), "utf8"));

    // No secret and no content in the file's plain bytes.
    const bytes = readFileSync(backupFile);
    const consoleSecret = readFileSync(join(homeA, "console-secret"), "utf8").trim();
    for (const plain of [
      TOKEN,
      API_KEY,
      consoleSecret,
      QQ_OWNER,
      MEMORY_TEXT,
      "clawbox-backup/about.json",
      "SQLite format 3",
    ])
      expect({ plain, found: bytes.includes(Buffer.from(plain, "utf8")) }).toEqual({
        plain,
        found: false,
      });
    expect(bytes.subarray(0, 22).toString()).toBe("age-encryption.org/v1\n");
  }, 300_000);
});
