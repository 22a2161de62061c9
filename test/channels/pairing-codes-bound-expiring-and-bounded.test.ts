/**
 * Pairing through the channel dispatcher, on a real SQLite store with a clock the test
 * moves: `/pair` in a direct chat gives a code bound to the sender; it expires; a denial
 * drops it silently; an approval adds exactly that sender to `agent.owners` in the config
 * file (comments kept) and tells them as a reply to their `/pair`; a group never pairs;
 * the same sender asking again within a minute is told once the code is pending, then
 * nothing; wrong codes lock approvals; and a
 * flood of 1,000 strangers leaves a bounded pending set and at most one owner notice per
 * interval. The dmPolicy modes decide who gets a code.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import JSON5 from "json5";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { ChatRequest, ChatResult } from "../../src/agent/index.ts";
import { Dispatcher, type InboundMessage, tellRequester } from "../../src/channels/index.ts";
import { noticePairingRequest } from "../../src/channels/pairing-notice.ts";
import { qqCapabilities } from "../../src/channels/qq/qq-capabilities.ts";
import { type ClawboxConfig, configSchema } from "../../src/config/index.ts";
import { isClawboxError } from "../../src/errors/index.ts";
import {
  approvedText,
  approvePairing,
  denyPairing,
  PairingRequests,
} from "../../src/pairing/index.ts";
import { createSessionResolver } from "../../src/sessions/index.ts";
import { Store } from "../../src/store/index.ts";
import { createLogger, silentLogger } from "../../src/system/index.ts";

const OWNER = "OWNER_OPENID";

let dir: string;
let store: Store;
let clock: number;
let configFile: string;
let config: ClawboxConfig;
let requests: PairingRequests;
let notices: string[];
/** Who was told (the owner id per notice) and the service's log lines. */
let told: string[];
let logLines: string[];
let turns: ChatRequest[];

const agent = {
  async chat(request: ChatRequest): Promise<ChatResult> {
    turns.push(request);
    return { sessionId: "s", sessionKey: request.sessionKey, reply: "answer", silent: false };
  },
};

function dispatcher(dmPolicy?: "open" | "allowlist" | "pairing", allowFrom: string[] = []) {
  const d = new Dispatcher({
    db: store.db,
    agent,
    tools: config.tools,
    sessions: createSessionResolver(config.agent),
    logger: silentLogger,
    onReplies: () => {},
    workspace: dir,
    pairing: {
      requests,
      // As the channel service wires it: the real notice rule, its log, a recording outbox.
      requested: (request, waiting, fresh) =>
        noticePairingRequest(
          {
            requests,
            owners: () => config.agent.owners,
            channels: () => config.channels,
            deliver: (target, text) => {
              notices.push(text);
              told.push(target.peerId);
            },
            logger: createLogger({ write: (line) => logLines.push(line) }),
          },
          request,
          waiting,
          fresh,
        ),
    },
  });
  d.register("qq", {
    capabilities: qqCapabilities(false),
    access: { allowFrom, groupPolicy: "mention", dmPolicy },
  });
  return d;
}

let counter = 0;
function direct(senderId: string, text: string): InboundMessage {
  counter += 1;
  return {
    channel: "qq",
    messageId: `m-${counter}`,
    chatType: "direct",
    senderId,
    text,
    mentioned: false,
    sentAt: clock,
    attachments: [],
  };
}

function repliesTo(peer: string): { replyTo: string | null; seq: number; text: string }[] {
  const rows = store.db
    .query("SELECT reply_to, seq, body FROM channel_outbox WHERE peer_id = ? ORDER BY id")
    .all(peer) as { reply_to: string | null; seq: number; body: string }[];
  return rows.map((r) => ({
    replyTo: r.reply_to,
    seq: r.seq,
    text: (JSON.parse(r.body) as { text: string }).text,
  }));
}

const codeIn = (text: string) => /code is ([A-Z2-9]{4}-[A-Z2-9]{4})/.exec(text)?.[1] ?? "";

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "clawbox-pairing-"));
  store = Store.open({ path: join(dir, "clawbox.sqlite") });
  clock = Date.now();
  configFile = join(dir, "clawbox.json");
  writeFileSync(
    configFile,
    `// the owner's box\n{\n  agent: { owners: ["cli", "qq:${OWNER}"] }, // who may do everything\n}\n`,
  );
  config = configSchema.parse({
    agent: { owners: ["cli", `qq:${OWNER}`] },
    channels: { qq: { appId: "1", clientSecret: "s" } },
  });
  requests = new PairingRequests(store.db, {}, () => clock);
  notices = [];
  told = [];
  logLines = [];
  turns = [];
});

afterEach(() => {
  store.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("pairing over a channel", () => {
  it("gives a stranger a code bound to them; approval makes exactly them an owner and tells them", async () => {
    const d = dispatcher();
    const ask = direct("STRANGER_A", "/pair");
    expect(d.receive(ask)).toBe("answered");
    const [reply] = repliesTo("STRANGER_A");
    const code = codeIn(reply?.text ?? "");
    expect(code).toMatch(/^[A-HJ-NP-Z2-9]{4}-[A-HJ-NP-Z2-9]{4}$/);
    expect(reply).toMatchObject({ replyTo: ask.messageId, seq: 1 });
    expect(turns).toEqual([]); // the model never saw /pair
    expect(requests.list()).toMatchObject([
      { ownerId: "qq:STRANGER_A", channel: "qq", senderId: "STRANGER_A" },
    ]);
    // Another stranger sending A's code gains nothing: it is an ordinary message.
    expect(d.receive(direct("STRANGER_B", code))).toBe("accepted");
    await d.drain();
    expect(turns.map((t) => t.senderId)).toEqual(["qq:STRANGER_B"]);
    const approved = await approvePairing(
      requests,
      { file: configFile, env: {} },
      code.toLowerCase(),
    );
    expect(approved.ownerId).toBe("qq:STRANGER_A");
    const text = readFileSync(configFile, "utf8");
    expect(text).toContain("// who may do everything");
    expect(text).toContain("// the owner's box");
    expect(JSON5.parse(text).agent.owners).toEqual(["cli", `qq:${OWNER}`, "qq:STRANGER_A"]);
    expect(requests.list()).toEqual([]);
    tellRequester(store.db, config.channels, approved, approvedText(), clock);
    expect(repliesTo("STRANGER_A").at(-1)).toMatchObject({
      replyTo: ask.messageId,
      seq: 2,
      text: approvedText(),
    });
    // Used once: the same code again is unknown.
    await expect(
      approvePairing(requests, { file: configFile, env: {} }, code),
    ).rejects.toMatchObject({ code: "NOT_FOUND" });
  });

  it("expires a code after 10 minutes: it is no longer listed and cannot be approved", async () => {
    const d = dispatcher();
    d.receive(direct("STRANGER_A", "/pair"));
    const code = codeIn(repliesTo("STRANGER_A")[0]?.text ?? "");
    clock += 9 * 60_000;
    expect(requests.list()).toHaveLength(1);
    clock += 60_000;
    expect(requests.list()).toEqual([]);
    await expect(
      approvePairing(requests, { file: configFile, env: {} }, code),
    ).rejects.toMatchObject({ code: "NOT_FOUND" });
    expect(JSON5.parse(readFileSync(configFile, "utf8")).agent.owners).toEqual([
      "cli",
      `qq:${OWNER}`,
    ]);
    // Asking again after expiry gives a new code.
    d.receive(direct("STRANGER_A", "/pair"));
    expect(codeIn(repliesTo("STRANGER_A").at(-1)?.text ?? "")).not.toBe(code);
  });

  it("a denial drops the request without telling the sender; the code is then unknown", async () => {
    const d = dispatcher();
    d.receive(direct("STRANGER_A", "/pair"));
    const code = codeIn(repliesTo("STRANGER_A")[0]?.text ?? "");
    expect(denyPairing(requests, code).ownerId).toBe("qq:STRANGER_A");
    expect(requests.list()).toEqual([]);
    expect(repliesTo("STRANGER_A")).toHaveLength(1);
    await expect(
      approvePairing(requests, { file: configFile, env: {} }, code),
    ).rejects.toMatchObject({ code: "NOT_FOUND" });
  });

  it("answers /pair in a group with a hint and no code, and an owner with 'already an owner'", () => {
    const d = dispatcher();
    const group: InboundMessage = {
      ...direct("MEMBER", "/pair"),
      chatType: "group",
      groupId: "G1",
      mentioned: true,
    };
    expect(d.receive(group)).toBe("answered");
    expect(repliesTo("G1")[0]?.text).toContain("only in a direct chat");
    expect(requests.list()).toEqual([]);
    expect(d.receive(direct(OWNER, " /PAIR "))).toBe("answered");
    expect(repliesTo(OWNER)[0]?.text).toContain("already an owner");
    expect(requests.list()).toEqual([]);
  });

  it("tells the same sender asking again within a minute once that the code is pending, then stays quiet, then resends the same code", () => {
    const d = dispatcher();
    d.receive(direct("STRANGER_A", "/pair"));
    d.receive(direct("STRANGER_B", "/pair"));
    const code = codeIn(repliesTo("STRANGER_A")[0]?.text ?? "");
    const all = () =>
      store.db.query("SELECT COUNT(*) AS n FROM channel_outbox").get() as { n: number };
    const sentBefore = all().n;
    // Before: no reply at all, as if the bot were broken.
    expect(d.receive(direct("STRANGER_A", "/pair"))).toBe("answered");
    const note = repliesTo("STRANGER_A")[1]?.text ?? "";
    expect(note).toContain("still waiting for the owner's approval");
    expect(note).not.toContain(code);
    expect(all().n).toBe(sentBefore + 1); // to that sender only
    // Rate-limited: more asking within the minute gets nothing.
    for (let i = 0; i < 5; i++) expect(d.receive(direct("STRANGER_A", "/pair"))).toBe("denied");
    expect(repliesTo("STRANGER_A")).toHaveLength(2);
    clock += 61_000;
    expect(d.receive(direct("STRANGER_A", "/pair"))).toBe("answered");
    expect(codeIn(repliesTo("STRANGER_A")[2]?.text ?? "")).toBe(code);
    expect(requests.list()).toHaveLength(2);
  });

  it("locks approvals after 5 wrong codes, even for the right one, until the window passes", async () => {
    const d = dispatcher();
    const file = { file: configFile, env: {} };
    for (const guess of ["AAAA-AAAA", "BBBB-BBBB", "nonsense", "CCCC-CCCC", "DDDD-DDDD"])
      await expect(approvePairing(requests, file, guess)).rejects.toMatchObject({
        code: "NOT_FOUND",
      });
    clock += 5 * 60_000;
    d.receive(direct("STRANGER_A", "/pair"));
    const code = codeIn(repliesTo("STRANGER_A")[0]?.text ?? "");
    const locked = await approvePairing(requests, file, code).catch((e: unknown) => e);
    expect(isClawboxError(locked, "PAIRING_LOCKED")).toBe(true);
    expect(String(locked)).not.toContain(code);
    clock += 4 * 60_000 + 59_000; // ten minutes after the first failure, less a second
    await expect(approvePairing(requests, file, code)).rejects.toMatchObject({
      code: "PAIRING_LOCKED",
    });
    clock += 2_000;
    await expect(approvePairing(requests, file, code)).resolves.toMatchObject({
      ownerId: "qq:STRANGER_A",
    });
  });

  it("a flood of 1,000 /pair from distinct strangers: bounded pending set, one owner notice per interval", () => {
    const d = dispatcher();
    for (let i = 0; i < 1000; i++) d.receive(direct(`FLOOD_${i}`, "/pair"));
    const pending = (
      store.db.query("SELECT COUNT(*) AS n FROM pairing_requests").get() as {
        n: number;
      }
    ).n;
    expect(pending).toBe(requests.limits.maxPending);
    expect(notices).toHaveLength(1);
    const events = (
      store.db.query("SELECT COUNT(*) AS n FROM pairing_events").get() as {
        n: number;
      }
    ).n;
    expect(events).toBeLessThanOrEqual(1);
    // The ones past the limit are told to try later, and get no code.
    expect(repliesTo("FLOOD_999")[0]?.text).toContain("Too many pairing requests");
    expect(codeIn(repliesTo("FLOOD_999")[0]?.text ?? "")).toBe("");
    // Nine minutes on, the flood goes on: still one notice.
    clock += 9 * 60_000;
    for (let i = 1000; i < 1500; i++) d.receive(direct(`FLOOD_${i}`, "/pair"));
    expect(notices).toHaveLength(1);
    // Past the interval (and the codes' expiry) the next request brings the second notice.
    clock += 60_000 + 1;
    for (let i = 1500; i < 2000; i++) d.receive(direct(`FLOOD_${i}`, "/pair"));
    expect(notices).toHaveLength(2);
    expect(
      (store.db.query("SELECT COUNT(*) AS n FROM pairing_requests").get() as { n: number }).n,
    ).toBe(requests.limits.maxPending);
    expect(turns).toEqual([]);
  });

  it("dmPolicy: allowlist ignores a stranger's /pair; pairing answers any stranger message with a code; owners always chat", async () => {
    const allowlist = dispatcher("allowlist", ["FRIEND"]);
    expect(allowlist.receive(direct("STRANGER_A", "/pair"))).toBe("denied");
    expect(allowlist.receive(direct("STRANGER_A", "hello"))).toBe("denied");
    expect(repliesTo("STRANGER_A")).toEqual([]);
    expect(allowlist.receive(direct(OWNER, "hello"))).toBe("accepted");
    expect(allowlist.receive(direct("FRIEND", "/pair"))).toBe("answered");
    const pairing = dispatcher("pairing", ["FRIEND"]);
    expect(pairing.receive(direct("STRANGER_B", "what can you do?"))).toBe("answered");
    expect(codeIn(repliesTo("STRANGER_B")[0]?.text ?? "")).not.toBe("");
    expect(pairing.receive(direct("FRIEND", "hello"))).toBe("accepted");
    const open = dispatcher("open", ["FRIEND"]);
    expect(open.receive(direct("STRANGER_C", "hello"))).toBe("accepted");
    await Promise.all([allowlist.drain(), pairing.drain(), open.drain()]);
    expect(turns.map((t) => t.senderId)).toEqual([`qq:${OWNER}`, "qq:FRIEND", "qq:STRANGER_C"]);
  });

  it("logs every request, one within 10 minutes of another included, and tells an owner who became one since", () => {
    const A = "1A2B3C4D5E6F708192A3B4C5D6E7F809";
    const B = "FFEEDDCCBBAA99887766554433221100";
    // Only the terminal is an owner: nobody can be told on a channel.
    config.agent.owners = ["cli"];
    const d = dispatcher();
    d.receive(direct("STRANGER_1", "/pair"));
    expect(told).toEqual([]);
    expect(logLines).toHaveLength(1);
    expect(logLines[0]).toContain("pairing requested");
    expect(logLines[0]).toContain("qq:STRANGER_1");
    expect(logLines[0]).toContain("no owner is reachable");
    // Two minutes later a QQ owner exists (approved since): the next request reaches them.
    clock += 2 * 60_000;
    config.agent.owners = ["cli", `qq:${A}`];
    d.receive(direct("STRANGER_2", "/pair"));
    expect(told).toEqual([A]);
    expect(notices[0]).toContain("qq:STRANGER_2");
    // Within their interval: logged, not told again.
    clock += 2 * 60_000;
    d.receive(direct("STRANGER_3", "/pair"));
    expect(told).toEqual([A]);
    expect(logLines).toHaveLength(3);
    expect(logLines[2]).toContain("qq:STRANGER_3");
    expect(logLines[2]).toContain("told of a request within the last 10 minutes");
    // A second owner since: they are told of the next one, though A was told 3 minutes ago.
    clock += 60_000;
    config.agent.owners = ["cli", `qq:${A}`, `qq:${B}`];
    d.receive(direct("STRANGER_4", "/pair"));
    expect(told).toEqual([A, B]);
    expect(logLines).toHaveLength(4);
    expect(logLines[3]).toContain(`"told":"qq:${B}"`);
    // A resend of a pending code is logged as such, and tells no owner again.
    clock += 2 * 60_000;
    d.receive(direct("STRANGER_4", "/pair"));
    expect(logLines).toHaveLength(5);
    expect(logLines[4]).toContain("pairing code sent again");
    expect(logLines[4]).toContain("qq:STRANGER_4");
    expect(told).toEqual([A, B]);
  });
});
