/**
 * The bridge's reply events across a crash (issue 27): the reply store keeps a reply's
 * QoS 2 packet in SQLite from before it is written until the broker's PUBCOMP, in the same
 * transaction that marks its prompt answered. A new process (new client, new store over
 * the same database file, same client id, persistent session) sends what is left, and a
 * real mosquitto delivers each reply exactly once: whether the crash came before the
 * PUBLISH left the process, or after the broker's PUBREC.
 */
import { Database } from "bun:sqlite";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { connectAsync, type MqttClient, UniqueMessageIdProvider } from "mqtt";
import { afterEach, describe, expect, it } from "vitest";
import { PromptInbox } from "../../src/mqtt/prompt-inbox.ts";
import { ReplyStore, reservingIdProvider } from "../../src/mqtt/reply-store.ts";
import { MIGRATIONS } from "../../src/store/index.ts";
import { waitUntil } from "../fakes/qq-platform.ts";
import { MOSQUITTO, startMosquitto } from "../support/mosquitto.ts";
import { type MqttProbe, startProbe } from "../support/mqtt-probe.ts";

const TOPIC = "clawbox/crashbox/event";
const cleanups: (() => Promise<unknown> | unknown)[] = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()?.();
});

function openDb(file: string, create = false): Database {
  const db = new Database(file);
  db.run("PRAGMA journal_mode = WAL");
  if (create) for (const m of MIGRATIONS) if (m.version === 400 || m.version === 440) db.run(m.sql);
  return db;
}

/** One "process": a store over the database file and a client on the persistent session. */
async function boxClient(url: string, db: Database) {
  const inbox = new PromptInbox(db);
  const replies = new ReplyStore(db, TOPIC, (id) => inbox.setState(id, "answered"));
  const client = await connectAsync(url, {
    clientId: "crashbox",
    clean: false,
    protocolVersion: 4,
    reconnectPeriod: 0,
    outgoingStore: replies.store(),
    messageIdProvider: reservingIdProvider(new UniqueMessageIdProvider(), replies.reserved),
  });
  return { inbox, replies, client };
}

function crash(client: MqttClient): void {
  (client as unknown as { stream: { destroy(): void } }).stream.destroy();
  client.end(true);
}

function state(db: Database, id: number): string {
  return (db.query("SELECT state FROM channel_inbox WHERE id = ?").get(id) as { state: string })
    .state;
}

const received = (probe: MqttProbe, text: string) =>
  probe.on(TOPIC).filter((m) => m.text === text).length;

describe.skipIf(!MOSQUITTO)("MQTT reply events across a crash (mosquitto)", () => {
  if (!MOSQUITTO) console.warn("skipped: the mosquitto package is not installed");

  it("delivers a reply once when the process died before its PUBLISH left, and after PUBREC", async () => {
    const broker = await startMosquitto();
    cleanups.push(() => broker.stop());
    const probe = await startProbe(broker.url, [TOPIC]);
    cleanups.push(() => probe.close());
    const file = join(mkdtempSync(join(tmpdir(), "clawbox-reply-crash-")), "clawbox.db");
    const db = openDb(file, true);
    cleanups.push(() => db.close());
    const prompt = (n: number) =>
      new PromptInbox(db).record({
        dup: false,
        packetId: n,
        payload: Buffer.from(`p${n}`),
        text: `p${n}`,
      }).id;

    // Crash 1: the PUBLISH is stored (prompt answered in the same transaction) but the
    // process dies before the bytes leave it.
    const first = await boxClient(broker.url, db);
    const one = prompt(1);
    first.replies.expect("reply-1", one);
    first.client.publish(TOPIC, "reply-1", { qos: 2 });
    crash(first.client);
    expect(state(db, one)).toBe("answered");
    expect(first.replies.inFlight()).toBe(1);

    // Crash 2, in the next process: after the broker's PUBREC (the PUBREL is stored).
    const second = await boxClient(broker.url, openDb(file));
    await waitUntil(() => received(probe, "reply-1") === 1, 10_000, "reply-1 after the restart");
    const two = prompt(2);
    second.client.on("packetreceive", (packet) => {
      if (packet.cmd === "pubrec") setImmediate(() => crash(second.client));
    });
    second.replies.expect("reply-2", two);
    second.client.publish(TOPIC, "reply-2", { qos: 2 });
    await waitUntil(
      () => second.client.disconnected || second.client.disconnecting,
      10_000,
      "crash 2",
    );
    expect(state(db, two)).toBe("answered");

    const third = await boxClient(broker.url, openDb(file));
    cleanups.push(() => third.client.endAsync(true));
    await waitUntil(() => third.replies.inFlight() === 0, 10_000, "the store to empty (PUBCOMP)");
    await waitUntil(() => received(probe, "reply-2") >= 1, 10_000, "reply-2");
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect([received(probe, "reply-1"), received(probe, "reply-2")]).toEqual([1, 1]);
  });
});
