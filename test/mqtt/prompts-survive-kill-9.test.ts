/**
 * Home Assistant's prompts across `kill -9` of the real `clawbox run` (issue 27, found by
 * the power-cut checks): a prompt the broker accepted while the box was down or restarting,
 * and a prompt whose turn was running when the process died, are each answered exactly
 * once after the restart. Real mosquitto; an OpenAI-compatible fake model that echoes the
 * prompt (its first request never answers: the turn is running when the kill lands).
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { fakeModelsSection } from "../e2e/qq-run-support.ts";
import { openaiText } from "../fakes/openai-server.ts";
import { waitUntil } from "../fakes/qq-platform.ts";
import { type ScriptedServer, startScriptedServer } from "../fakes/scripted-sse-server.ts";
import { MOSQUITTO, type Mosquitto, startMosquitto } from "../support/mosquitto.ts";
import { type MqttProbe, startProbe } from "../support/mqtt-probe.ts";
import { type RunningService, startService } from "../support/run-service.ts";

const NODE = "killbox";
const cleanups: (() => Promise<unknown> | unknown)[] = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()?.();
});

async function start(home: string): Promise<RunningService> {
  const service = await startService(["--port", "0"], { CLAWBOX_HOME: home, CLAWBOX_CONFIG: "" });
  cleanups.push(async () => {
    service.child.kill("SIGKILL");
    await service.exited;
  });
  return service;
}

async function kill9(service: RunningService): Promise<void> {
  service.child.kill("SIGKILL");
  await service.exited;
}

/** Reply events per prompt id seen by Home Assistant's side. */
function repliesById(probe: MqttProbe): Map<string, number> {
  const counts = new Map<string, number>();
  for (const m of probe.on(`clawbox/${NODE}/event`)) {
    const event = probe.json(m);
    if (event.event_type === "reply")
      counts.set(String(event.id), (counts.get(String(event.id)) ?? 0) + 1);
  }
  return counts;
}

describe.skipIf(!MOSQUITTO)("MQTT prompts across kill -9 of clawbox run", () => {
  if (!MOSQUITTO) console.warn("skipped: the mosquitto package is not installed");

  it("answers once a prompt sent while the box was down and one whose turn the kill cut off", async () => {
    const broker: Mosquitto = await startMosquitto();
    cleanups.push(() => broker.stop());
    const model: ScriptedServer = await startScriptedServer(
      () => undefined,
      (request) => {
        const messages = request.body.messages as { role: string; content: unknown }[];
        const last = JSON.stringify(messages.filter((m) => m.role === "user").at(-1)?.content);
        return openaiText(`echo ${/\[(p\d)\]/.exec(last)?.[1] ?? "?"}`);
      },
    );
    cleanups.push(() => model.close());
    model.enqueue({ kind: "hang" });
    const home = mkdtempSync(join(tmpdir(), "clawbox-mqtt-kill-"));
    writeFileSync(
      join(home, "clawbox.json"),
      JSON.stringify({
        models: fakeModelsSection(model.url),
        memory: { enabled: false },
        mqtt: { enabled: true, url: broker.url, nodeId: NODE },
      }),
    );
    const probe = await startProbe(broker.url, [`clawbox/${NODE}/#`]);
    cleanups.push(() => probe.close());
    const prompt = (n: number) =>
      probe.publish(
        `clawbox/${NODE}/prompt/set`,
        JSON.stringify({ prompt: `do [p${n}]`, id: `p${n}` }),
      );

    const first = await start(home);
    await probe.waitFor((m) => m.topic === `clawbox/${NODE}/availability` && m.text === "online");
    // p1's turn is running (the model hangs) when the process dies.
    await prompt(1);
    await waitUntil(() => model.requests.length >= 1, 30_000, "the model request of p1");
    await kill9(first);
    // p2 and p3: accepted by the broker (PUBACK) while the box is down.
    await prompt(2);
    await prompt(3);

    await start(home);
    await waitUntil(
      () => ["p1", "p2", "p3"].every((id) => (repliesById(probe).get(id) ?? 0) >= 1),
      30_000,
      "replies to p1, p2 and p3",
    );
    // Anything late would show up now.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(Object.fromEntries(repliesById(probe))).toEqual({ p1: 1, p2: 1, p3: 1 });
  });
});
