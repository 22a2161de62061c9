/**
 * A prompt stored just before the process died, whose PUBACK never reached the broker, is
 * sent again by a real mosquitto on the next connect (DUP flag, same packet id): the prompt
 * inbox recognizes it and does not store it twice, while the same text published again by
 * Home Assistant (a fresh message) is a new prompt (issue 27).
 */
import { Database } from "bun:sqlite";
import { connect, type MqttClient } from "mqtt";
import { afterEach, describe, expect, it } from "vitest";
import { PromptInbox } from "../../src/mqtt/prompt-inbox.ts";
import { MIGRATIONS } from "../../src/store/index.ts";
import { waitUntil } from "../fakes/qq-platform.ts";
import { MOSQUITTO, startMosquitto } from "../support/mosquitto.ts";
import { startProbe } from "../support/mqtt-probe.ts";

const TOPIC = "clawbox/dupbox/prompt/set";
const cleanups: (() => Promise<unknown> | unknown)[] = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()?.();
});

describe.skipIf(!MOSQUITTO)("MQTT prompts the broker sends again (mosquitto)", () => {
  if (!MOSQUITTO) console.warn("skipped: the mosquitto package is not installed");

  it("stores a resent prompt once and a repeated prompt twice", async () => {
    const broker = await startMosquitto();
    cleanups.push(() => broker.stop());
    const db = new Database(":memory:");
    for (const m of MIGRATIONS) if (m.version === 400) db.run(m.sql);
    const inbox = new PromptInbox(db);
    const outcomes: { stored: boolean; dup: boolean }[] = [];
    /** The box: stores each prompt as the bridge does (in the message event, before PUBACK). */
    const box = (ack: boolean): MqttClient => {
      const client = connect(broker.url, {
        clientId: "dupbox",
        clean: false,
        protocolVersion: 4,
        reconnectPeriod: 0,
      });
      client.on("message", (_topic, payload, packet) => {
        const { stored } = inbox.record({
          packetId: packet.messageId,
          dup: packet.dup,
          payload,
          text: payload.toString(),
        });
        outcomes.push({ stored, dup: packet.dup });
      });
      // The first process dies before its PUBACK goes out.
      if (!ack) client.handleMessage = () => {};
      return client;
    };

    const first = box(false);
    await new Promise<void>((resolve) => first.once("connect", () => resolve()));
    await first.subscribeAsync(TOPIC, { qos: 1 });
    const ha = await startProbe(broker.url, ["clawbox/dupbox/none"]);
    cleanups.push(() => ha.close());
    await ha.publish(TOPIC, "turn on the light");
    await waitUntil(() => outcomes.length === 1, 10_000, "the first delivery");
    (first as unknown as { stream: { destroy(): void } }).stream.destroy();
    first.end(true);

    const second = box(true);
    cleanups.push(() => second.endAsync(true));
    await waitUntil(() => outcomes.length === 2, 10_000, "the broker's resend");
    await ha.publish(TOPIC, "turn on the light");
    await waitUntil(() => outcomes.length === 3, 10_000, "the repeated prompt");

    expect(outcomes).toEqual([
      { stored: true, dup: false },
      { stored: false, dup: true },
      { stored: true, dup: false },
    ]);
    expect(inbox.unanswered().map((p) => p.text)).toEqual([
      "turn on the light",
      "turn on the light",
    ]);
  });
});
