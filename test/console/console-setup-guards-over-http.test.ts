/**
 * The guards of the console's set-up pages at the HTTP level, against a real `clawbox
 * run` (no browser, so none of this depends on Chromium): pairing approval only with a
 * logged-in session (its header), wrong codes locking approvals (429); channel
 * secrets write-only (never in an answer, "set" instead) and a bad value refused with
 * the key named and the file unchanged; workspace saves of a file changed on disk
 * refused (409), names outside the seven refused, a link out of the workspace refused;
 * TOOLS.md problems by line; reminders for unknown targets refused; the log ring without
 * secrets; the client's URL versioned (immutable only for its own hash) and parseable;
 * the session route behind the login; the default conversation named.
 */
import { mkdtempSync, readFileSync, rmSync, symlinkSync, unlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PairingRequests } from "../../src/pairing/index.ts";
import { Store } from "../../src/store/index.ts";
import { type ConsoleSession, consoleLogin } from "../support/console-session.ts";
import { type RunningService, startService } from "../support/run-service.ts";

const TOKEN = "console-setup-http-token-0123";
const QQ_SECRET = "qq-secret-never-shown-7788";

let home: string;
let configFile: string;
let box: RunningService;
let session: ConsoleSession;
/** The app shell, as the browser gets it. */
let shell: string;

const get = (path: string) => session.get(path);
const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
  session.post(path, body, headers);

/** A pending request as a stranger's `/pair` would leave it (the running box reads the same database). */
function pendingCode(sender: string): string {
  const store = Store.open({ path: join(home, "clawbox.db") });
  try {
    const answer = new PairingRequests(store.db).ask({
      channel: "qq",
      senderId: sender,
      ownerId: `qq:${sender}`,
      messageId: `m-${sender}`,
    });
    if (answer.kind !== "code") throw new Error(`no code: ${answer.kind}`);
    return answer.request.display;
  } finally {
    store.close();
  }
}

beforeAll(async () => {
  home = mkdtempSync(join(tmpdir(), "clawbox-console-setup-http-"));
  configFile = join(home, "clawbox.json");
  writeFileSync(
    configFile,
    `// the box\n{\n  server: { token: "${TOKEN}" },\n  memory: { enabled: false }, // quick start\n}\n`,
  );
  box = await startService(["--port", "0"], { CLAWBOX_HOME: home, CLAWBOX_CONFIG: "" });
  session = await consoleLogin(box.url, TOKEN);
  shell = await (await fetch(`${box.url}/`)).text();
}, 90_000);

afterAll(async () => {
  box?.child.kill("SIGTERM");
  await box?.exited;
  if (home) rmSync(home, { recursive: true, force: true });
});

describe("pairing approval over HTTP", () => {
  it("needs a logged-in session; a made-up session header or no header changes nothing", async () => {
    const code = pendingCode("STRANGER_A");
    const body = JSON.stringify({ code });
    const anonymous = await fetch(`${box.url}/console/api/owners/approve`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body,
    });
    expect(anonymous.status).toBe(401);
    const forged = await post("owners/approve", { code }, { "X-Clawbox-Session": "made-up" });
    expect(forged.status).toBe(401);
    // The bearer HTTP API is not a way in either.
    const api = await fetch(`${box.url}/api/chat`, {
      method: "POST",
      headers: { Authorization: `Bearer ${TOKEN}`, "Content-Type": "application/json" },
      body: JSON.stringify({ message: `/pair approve ${code}` }),
    });
    await api.text();
    const config = readFileSync(configFile, "utf8");
    expect(config).not.toContain("STRANGER_A");
    const owners = (await (await get("owners")).json()) as { pending: { display: string }[] };
    expect(owners.pending.map((p) => p.display)).toContain(code);
    // With the session and its header: approved, written in place.
    const ok = await post("owners/approve", { code });
    expect(ok.status).toBe(200);
    expect(await ok.json()).toMatchObject({ approved: "qq:STRANGER_A" });
    const text = readFileSync(configFile, "utf8");
    expect(text).toContain("// quick start");
    expect(text).toContain('"qq:STRANGER_A"');
  });

  it("removes an owner, never the one the console speaks as, never the last one", async () => {
    // With two owners, the console's own id (the first, cli) stays: 409, file unchanged.
    const own = await post("owners/remove", { owner: "cli" });
    expect(own.status).toBe(409);
    expect(((await own.json()) as { error: { message: string } }).error.message).toContain(
      "the console speaks as this owner",
    );
    expect(readFileSync(configFile, "utf8")).toContain('"cli"');
    const removed = await post("owners/remove", { owner: "qq:STRANGER_A" });
    expect(removed.status).toBe(200);
    expect(readFileSync(configFile, "utf8")).not.toContain("STRANGER_A");
    const last = await post("owners/remove", { owner: "cli" });
    expect(last.status).toBe(409);
    expect(((await last.json()) as { error: { message: string } }).error.message).toContain(
      "only owner",
    );
    const nobody = await post("owners/remove", { owner: "qq:NOBODY" });
    expect(nobody.status).toBe(404);
    expect(((await nobody.json()) as { error: { message: string } }).error.message).toBe(
      "qq:NOBODY is not in agent.owners",
    );
  });

  it("denies a code: it is gone, and approving it later is a wrong code", async () => {
    const code = pendingCode("STRANGER_B");
    expect((await post("owners/deny", { code })).status).toBe(200);
    const again = await post("owners/approve", { code });
    expect(again.status).toBe(404);
    // On the Owners page, no "see … the console's Owners page".
    const said = ((await again.json()) as { error: { message: string } }).error.message;
    expect(said).toContain("no pending pairing request");
    expect(said).not.toContain("Owners page");
    expect(readFileSync(configFile, "utf8")).not.toContain("STRANGER_B");
  });

  it("locks approvals after wrong codes (429), even for a right one", async () => {
    const code = pendingCode("STRANGER_C");
    const statuses: number[] = [];
    for (const guess of ["AAAA-AAAA", "BBBB-BBBB", "CCCC-CCCC", "DDDD-DDDD", "EEEE-EEEE"])
      statuses.push((await post("owners/approve", { code: guess })).status);
    // The denied code above was the first wrong one of this window.
    expect(statuses).toEqual([404, 404, 404, 404, 429]);
    const locked = await post("owners/approve", { code });
    expect(locked.status).toBe(429);
    expect(readFileSync(configFile, "utf8")).not.toContain("STRANGER_C");
  });
});

describe("the Channels page's API", () => {
  it("says how many messages the outbox gave up on, with the newest one's reason", async () => {
    const store = Store.open({ path: join(home, "clawbox.db") });
    try {
      store.db
        .query(
          "INSERT INTO channel_outbox (channel, chat_type, peer_id, seq, body, state, next_attempt_at, created_at, reason) VALUES ('qq', 'direct', 'P1', 1, '{\"text\":\"hi\"}', 'failed', 0, ?, 'the QQ platform could not be reached')",
        )
        .run(Date.now());
    } finally {
      store.close();
    }
    const d = (await (await get("channels")).json()) as {
      forms: {
        id: string;
        status?: { outbox?: Record<string, number>; lastFailure?: { reason: string } };
      }[];
    };
    const qq = d.forms.find((f) => f.id === "qq")?.status;
    expect(qq?.outbox?.failed).toBe(1);
    expect(qq?.lastFailure?.reason).toBe("the QQ platform could not be reached");
  });

  it("writes a secret but never sends it back: GET says only that it is set", async () => {
    const saved = await post("channels/qq", {
      values: {
        appId: "1020304",
        clientSecret: QQ_SECRET,
        apiBase: "http://127.0.0.1:9",
        enabled: false,
      },
    });
    expect(saved.status).toBe(200);
    const answer = await saved.text();
    expect(answer).not.toContain(QQ_SECRET);
    expect(readFileSync(configFile, "utf8")).toContain(QQ_SECRET);
    const view = await (await get("channels")).text();
    expect(view).not.toContain(QQ_SECRET);
    const qq = (
      JSON.parse(view) as { forms: { id: string; values: Record<string, unknown> }[] }
    ).forms.find((f) => f.id === "qq");
    expect(qq?.values).toMatchObject({ appId: "1020304", clientSecret: { set: true } });
    // A blank secret keeps the stored one.
    await post("channels/qq", { values: { clientSecret: "", markdown: true } });
    expect(readFileSync(configFile, "utf8")).toContain(QQ_SECRET);
    // The Test answer does not echo it either (the endpoint is unreachable: plain words).
    const test = await post("channels/qq/test", { values: {} });
    const result = (await test.json()) as { ok: boolean; message: string };
    expect(result.ok).toBe(false);
    expect(result.message).toContain("Could not reach QQ's token endpoint");
    expect(result.message).not.toContain(QQ_SECRET);
  });

  it("refuses a value the box would not load, naming the key, not the value; the file stays", async () => {
    const before = readFileSync(configFile, "utf8");
    const bad = await post("channels/wecom-app", {
      values: {
        corpId: "ww01",
        corpSecret: "app-secret-value-123",
        agentId: 1000002,
        token: "callback-token-1",
        encodingAESKey: "too-short-key-value",
      },
    });
    expect(bad.status).toBe(400);
    const { error } = (await bad.json()) as { error: { message: string; field: string } };
    const message = error.message;
    // Said as the form says it: the field and what is wrong, not the file and key path.
    expect(error.field).toBe("encodingAESKey");
    expect(message).toMatch(/^EncodingAESKey: /);
    expect(message).not.toContain("clawbox.json");
    expect(message).not.toContain("too-short-key-value");
    expect(message).not.toContain("app-secret-value-123");
    expect(readFileSync(configFile, "utf8")).toBe(before);
    const empty = await post("channels/qq", { values: { appId: "" } });
    expect(empty.status).toBe(400);
    expect(await empty.json()).toMatchObject({
      error: { field: "appId", message: "AppID: required" },
    });
    const broker = (await (
      await post("channels/mqtt/test", { values: { enabled: true, url: "127.0.0.1" } })
    ).json()) as { ok: boolean; message: string; field?: string };
    expect(broker.ok).toBe(false);
    expect(broker.field).toBe("url");
    expect(broker.message).toMatch(/^Broker URL: .*e\.g\. mqtt:\/\//);
    expect(broker.message).not.toContain("Fix the settings first");
    expect((await post("channels/qq", { values: { mode: "carrier-pigeon" } })).status).toBe(400);
    expect((await post("channels/qq", { values: { nope: "x" } })).status).toBe(400);
    expect((await post("channels/irc", { values: {} })).status).toBe(404);
  });

  it("needs the session's header to write", async () => {
    const res = await post("channels/qq", { values: { appId: "9" } }, { "X-Clawbox-Session": "x" });
    expect(res.status).toBe(401);
    expect(readFileSync(configFile, "utf8")).toContain('"1020304"');
  });
});

describe("the Workspace page's API", () => {
  it("refuses to save over a file changed on disk since it was opened (409), and saves atomically otherwise", async () => {
    const opened = (await (await get("workspace/SOUL.md")).json()) as {
      text: string;
      version: string;
    };
    const path = join(home, "workspace", "SOUL.md");
    writeFileSync(path, `${opened.text}\nEdited over SSH.\n`);
    const stale = await post("workspace/SOUL.md", { text: "mine", version: opened.version });
    expect(stale.status).toBe(409);
    expect(((await stale.json()) as { error: { code: string } }).error.code).toBe("FILE_CHANGED");
    expect(readFileSync(path, "utf8")).toContain("Edited over SSH.");
    const fresh = (await (await get("workspace/SOUL.md")).json()) as { version: string };
    const saved = await post("workspace/SOUL.md", { text: "Be kind.\n", version: fresh.version });
    expect(saved.status).toBe(200);
    expect(readFileSync(path, "utf8")).toBe("Be kind.\n");
  });

  it("edits only the seven prompt files, never through a link out of the workspace", async () => {
    for (const name of ["BOOTSTRAP.md", "..%2Fclawbox.json", "notes.md", "skills"])
      expect((await get(`workspace/${name}`)).status).toBe(404);
    expect(
      (await post("workspace/..%2Fclawbox.json", { text: "{}", version: "absent" })).status,
    ).toBe(404);
    const outside = join(home, "outside.txt");
    writeFileSync(outside, "not the workspace\n");
    const link = join(home, "workspace", "IDENTITY.md");
    unlinkSync(link);
    symlinkSync(outside, link);
    expect((await get("workspace/IDENTITY.md")).status).toBe(403);
    const write = await post("workspace/IDENTITY.md", { text: "owned", version: "absent" });
    expect(write.status).toBe(403);
    expect(readFileSync(outside, "utf8")).toBe("not the workspace\n");
  });

  it("reports TOOLS.md problems with their line, from the runtime's parser", async () => {
    const text =
      "# Tools\n\n## Cameras\n\n- name: porch\n  url: ftp://x\n\n- name: yard\n  url: http://cam/y.jpg\n";
    const check = (await (await post("workspace/check", { text })).json()) as {
      devices: { name: string }[];
      problems: { line: number; message: string }[];
    };
    expect(check.devices.map((d) => d.name)).toEqual(["yard"]);
    expect(check.problems).toEqual([
      {
        line: 5,
        message: "TOOLS.md line 5: camera porch: url must be an http(s):// or rtsp:// URL",
      },
    ]);
  });
});

describe("reminders, logs, assets and sessions", () => {
  it("adds a reminder for the console and refuses an unknown target", async () => {
    const bad = await post("reminders", {
      text: "x",
      kind: "in",
      value: "5 minutes",
      target: "qq:SOMEONE",
    });
    expect(bad.status).toBe(400);
    const badTime = await post("reminders", { text: "x", kind: "daily", value: "25:00" });
    expect(badTime.status).toBe(400);
    const added = await post("reminders", { text: "stretch", kind: "in", value: "20 minutes" });
    expect(added.status).toBe(200);
    const { id } = (await added.json()) as { id: string };
    const list = (await (await get("reminders")).json()) as {
      jobs: { id: string; where: string }[];
    };
    expect(list.jobs.find((j) => j.id === id)?.where).toBe("web conversation");
    expect((await post(`reminders/${id}/remove`, {})).status).toBe(200);
    expect((await post(`reminders/${id}/remove`, {})).status).toBe(404);
  });

  it("shows recent log lines without the channel secret set at runtime", async () => {
    const logs = (await (await get("logs?level=debug")).json()) as { lines: { line: string }[] };
    const text = logs.lines.map((l) => l.line).join("\n");
    expect(text).toContain("channel settings changed from the console");
    expect(text).not.toContain(QQ_SECRET);
    // The no-model hint (from the chat tried above) names no port: this box is not on 18790.
    expect(box.url).not.toContain(":18790");
    expect(text).toContain("clawbox console url prints its link");
    expect(text).not.toContain("18790");
    const warn = (await (await get("logs?level=error")).json()) as { lines: { line: string }[] };
    expect(warn.lines.every((l) => !l.line.startsWith("INFO"))).toBe(true);
  });

  it("versions the client's URL: immutable only for its own hash, and the script parses", async () => {
    const src = /src="(\/console\/assets\/console\.js\?v=[0-9a-f]{12})"/.exec(shell)?.[1];
    expect(src).toBeDefined();
    const versioned = await fetch(`${box.url}${src}`, { headers: { "Accept-Encoding": "gzip" } });
    expect(versioned.headers.get("cache-control")).toContain("immutable");
    for (const url of ["/console/assets/console.js", "/console/assets/console.js?v=000000000000"]) {
      const res = await fetch(`${box.url}${url}`);
      expect(res.headers.get("cache-control")).toBe("no-cache");
      await res.text();
    }
    expect(versioned.headers.get("content-encoding")).toBe("gzip");
    // fetch has already unzipped the body.
    const script = await versioned.text();
    // One syntax error in any part would blank every page.
    expect(() => new Function(script)).not.toThrow();
  });

  it("keeps the first load (shell, the one script that draws every page, styles) under 150 KB gzipped", async () => {
    const wire = async (path: string) =>
      (
        await (
          await fetch(`${box.url}${path}`, {
            headers: { "Accept-Encoding": "gzip" },
            decompress: false,
          } as RequestInit)
        ).arrayBuffer()
      ).byteLength;
    const script = /src="([^"]+)"/.exec(shell)?.[1] ?? "";
    const styles = /href="(\/console\/assets\/[^"]+)"/.exec(shell)?.[1] ?? "";
    const sizes = [await wire("/"), await wire(script), await wire(styles)];
    expect(sizes.every((n) => n > 100)).toBe(true);
    expect(sizes.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(150 * 1024);
  });

  it("tells only a logged-in session the version, and names the default conversation", async () => {
    expect((await fetch(`${box.url}/console/api/session`)).status).toBe(401);
    const mine = (await (await get("session")).json()) as { version: string; expiresAt: number };
    expect(mine.version.length).toBeGreaterThan(0);
    expect(shell).not.toContain(mine.version);
    expect(mine.expiresAt).toBeGreaterThan(Date.now() + 11 * 3600 * 1000);
    const sessions = (await (await get("sessions")).json()) as { defaultSession: string };
    expect(sessions.defaultSession).toBe("agent:main:web:direct:owner");
  });
});

describe("the chat's session picker", () => {
  it("marks a stranger's session read-only and the owner's writable, as a send would find", async () => {
    const store = Store.open({ path: join(home, "clawbox.db") });
    try {
      store.sessions.create({
        sessionKey: "agent:main:qq:direct:stranger_z",
        chatType: "direct",
        principal: "qq:STRANGER_Z",
      });
    } finally {
      store.close();
    }
    const d = (await (await get("sessions")).json()) as {
      sessions: { sessionKey: string; writable: boolean }[];
    };
    const stranger = d.sessions.find((s) => s.sessionKey === "agent:main:qq:direct:stranger_z");
    expect(stranger?.writable).toBe(false);
    const sent = await post("chat", { message: "hi", session: "agent:main:qq:direct:stranger_z" });
    expect(sent.status).toBe(403);
    await sent.text();
  });
});

describe("the Reminders page's API", () => {
  it("names a wrong time by the field the page shows (When), not the scheduler's argument", async () => {
    const wrong = await post("reminders", { text: "bins", kind: "in", value: "soonish" });
    expect(wrong.status).toBe(400);
    const said = ((await wrong.json()) as { error: { message: string } }).error.message;
    expect(said).toMatch(/^When: /);
    expect(said).not.toMatch(/^at: /);
  });
});

describe("the Status page's API", () => {
  it("shows the config row, failing while the file is broken, ok again once fixed", async () => {
    type Status = { checks: { name: string; status: string; message: string }[] };
    const row = async () =>
      ((await (await get("status")).json()) as Status).checks.find((c) => c.name === "config");
    expect((await row())?.status).toBe("ok");
    const good = readFileSync(configFile, "utf8");
    writeFileSync(configFile, `${good}\n{ broken`);
    try {
      expect((await row())?.status).toBe("fail");
    } finally {
      writeFileSync(configFile, good);
    }
    expect((await row())?.status).toBe("ok");
  });
});
