/**
 * Home Assistant's Assist against a real `clawbox run` over Wyoming (issue 40): a client
 * written from the protocol (test/fakes/wyoming-client.ts) asks `describe` and gets an
 * `info` HA's parser accepts; a `transcript` gets `handled` with the reply shaped for
 * speech; the same conversation continues in its room; two satellites are two
 * sessions; and every bad input (malformed header or JSON, lying and gigabyte lengths,
 * unknown events, a 1 MB transcript, a slow sender, 1,000 connections at once, a peer
 * outside `wyoming.allowFrom`) gets an `error` event or a closed connection while the
 * service and other turns go on. The box's model is a fake OpenAI server on loopback.
 */
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openaiText, type ScriptedServer, startFakeOpenAI } from "../fakes/openai-server.ts";
import { assistTurn, connectWyoming, wireEvent } from "../fakes/wyoming-client.ts";
import { cloudOnlyConfig } from "../support/openai-provider-fixture.ts";
import { type RunningService, startService } from "../support/run-service.ts";
import { spawnCli } from "../support/spawn-cli.ts";

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

async function waitForPort(port: number): Promise<void> {
  for (let i = 0; i < 200; i++) {
    const ok = await connectWyoming(port).then(
      (c) => {
        c.close();
        return true;
      },
      () => false,
    );
    if (ok) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`nothing listens on ${port}`);
}

/** The user and assistant texts the box's model was sent in a request. */
function textsSent(request: { body: Record<string, unknown> } | undefined): string[] {
  const messages = (request?.body.messages ?? []) as { role: string; content: unknown }[];
  return messages
    .filter((m) => m.role === "user" || m.role === "assistant")
    .map((m) => (typeof m.content === "string" ? m.content : JSON.stringify(m.content ?? "")));
}

function rssKiB(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, "utf8")
    .split("\n")
    .find((l) => l.startsWith("VmRSS:"));
  return Number(line?.replace(/\D+/g, "") ?? 0);
}

describe("Home Assistant's Assist drives clawbox run over Wyoming", () => {
  let model: ScriptedServer;
  let home: string;
  let service: RunningService;
  let port: number;

  beforeAll(async () => {
    model = await startFakeOpenAI();
    port = await freePort();
    home = mkdtempSync(join(tmpdir(), "clawbox-wyoming-"));
    writeFileSync(
      join(home, "clawbox.json"),
      JSON.stringify(
        cloudOnlyConfig(model.url, {
          wyoming: { enabled: true, port, allowFrom: ["127.0.0.1", "::1"] },
        }),
      ),
    );
    service = await startService(["--port", "0"], { CLAWBOX_HOME: home });
    await waitForPort(port);
    // The owner's private notes: a voice room's turn must never carry them to the model.
    writeFileSync(
      join(home, "workspace", "MEMORY.md"),
      "# Memory\n\n- The safe code is ZANZIBAR-4411.\n",
    );
  }, 90_000);

  afterAll(async () => {
    service?.child.kill("SIGTERM");
    await service?.exited;
    await model?.close();
  });

  it("answers describe with an info event whose handle program HA's parser accepts", async () => {
    const client = await connectWyoming(port);
    client.send("describe");
    const info = await client.next();
    client.close();
    expect(info.type).toBe("info");
    for (const list of ["asr", "tts", "handle", "intent", "wake", "mic", "snd"])
      expect(Array.isArray(info.data[list]), list).toBe(true);
    const handle = (info.data.handle as Record<string, unknown>[])[0] ?? {};
    // The fields wyoming/info.py requires (a missing one breaks HA's config flow).
    expect(handle).toMatchObject({
      name: expect.stringMatching(/^clawbox /),
      attribution: { name: "clawbox", url: expect.any(String) },
      installed: true,
      supports_handled_streaming: false,
    });
    const models = handle.models as Record<string, unknown>[];
    expect(models[0]).toMatchObject({ installed: true, languages: [] });
  });

  it("answers a transcript with handled, shaped for speech, and the same conversation continues", async () => {
    model.enqueue(
      openaiText(
        "**The kettle is blue** 🫖, about 1.5 l. See [the manual](https://example.com/k).",
      ),
    );
    const first = await assistTurn(
      port,
      "What colour is the kettle?",
      { conversation_id: "01JF8ZQ3V9M7W6K5T4S3R2P1N0", satellite_id: "assist_satellite.kitchen" },
      "en",
    );
    expect(first.type).toBe("handled");
    expect(first.data.text).toBe("The kettle is blue, about 1.5 l. See the manual.");
    // The model was told it speaks, in the transcript's language.
    const asked = JSON.stringify(model.requests.at(-1)?.body);
    expect(asked).toContain("spoken aloud by a voice assistant");
    expect(asked).toContain("answer in the language en");
    // The household: no private files in the prompt, no exec or file writes offered.
    expect(asked).not.toContain("ZANZIBAR-4411");
    const offered = (
      (model.requests.at(-1)?.body.tools ?? []) as { function: { name: string } }[]
    ).map((t) => t.function.name);
    for (const name of ["exec", "write", "edit", "apply_patch", "read", "cron"])
      expect(offered).not.toContain(name);

    model.enqueue(openaiText("It is blue."));
    const second = await assistTurn(port, "And what did you say?", {
      conversation_id: "01JF8ZQ3V9M7W6K5T4S3R2P1N0",
      satellite_id: "assist_satellite.kitchen",
    });
    expect(second).toMatchObject({ type: "handled", data: { text: "It is blue." } });
    const sent = textsSent(model.requests.at(-1));
    expect(sent).toHaveLength(3);
    expect(sent[0]).toContain("What colour is the kettle?");
    expect(sent[2]).toContain("And what did you say?");
  }, 120_000);

  it("two satellites are two rooms: two sessions, neither sees the other's words", async () => {
    model.enqueue(openaiText("Goodnight."));
    const bedroom = await assistTurn(port, "Goodnight from the bedroom", {
      conversation_id: "01JF8ZQ3V9M7W6K5T4S3R2P1N1",
      satellite_id: "assist_satellite.bedroom",
      device_id: "4a6b0c1d2e3f40516273849a5b6c7d8e",
    });
    expect(bedroom.type).toBe("handled");
    const sent = textsSent(model.requests.at(-1));
    expect(sent).toHaveLength(1);
    expect(sent.join("\n")).not.toContain("kettle");
    const listed = await spawnCli(["sessions", "list", "--json"], { CLAWBOX_HOME: home });
    const keys = (JSON.parse(listed.stdout) as { sessionKey: string }[]).map((r) => r.sessionKey);
    expect(keys.sort()).toEqual([
      "agent:main:wyoming:direct:assist_satellite.bedroom",
      "agent:main:wyoming:direct:assist_satellite.kitchen",
    ]);
  }, 60_000);

  /** After each bad input the service still answers: a describe on a new connection. */
  async function stillServes(): Promise<void> {
    const client = await connectWyoming(port);
    client.send("describe");
    expect((await client.next()).type).toBe("info");
    client.close();
  }

  /** Sends `bytes`; expects an error event with `code` and then the connection closed. */
  async function refused(bytes: Buffer | string, code: string): Promise<string> {
    const client = await connectWyoming(port);
    client.write(bytes);
    const event = await client.next();
    expect(event.type).toBe("error");
    expect(event.data.code).toBe(code);
    expect(await client.closed()).toBe(true);
    await stillServes();
    return String(event.data.text);
  }

  it("a malformed header or JSON gets an error event and the connection is closed", async () => {
    expect(await refused("this is not json\n", "bad-header")).toContain("not a JSON object");
    expect(await refused('{"data":{}}\n', "bad-header")).toContain("no event type");
    expect(await refused('{"type":"transcript","data_length":-4}\n', "bad-header")).toContain(
      "data_length",
    );
    const body = Buffer.from('{"text":"hi", ');
    expect(
      await refused(
        Buffer.concat([
          Buffer.from(`{"type":"transcript","data_length":${body.byteLength}}\n`),
          body,
        ]),
        "bad-data",
      ),
    ).toContain("not a JSON object");
  });

  it("a data_length or payload_length that claims gigabytes is refused before anything is read", async () => {
    expect(
      await refused('{"type":"transcript","data_length":1073741824}\n', "data-too-long"),
    ).toContain("1073741824");
    expect(
      await refused('{"type":"audio-chunk","payload_length":4294967296}\n', "payload-too-long"),
    ).toContain("4294967296");
  });

  it("a data_length that says less than was sent breaks the JSON and is refused", async () => {
    const data = Buffer.from(JSON.stringify({ text: "turn on the light" }));
    const lying = Buffer.concat([
      Buffer.from(`{"type":"transcript","data_length":${data.byteLength - 5}}\n`),
      data,
    ]);
    await refused(lying, "bad-data");
  });

  it("an unknown event gets an error event and the connection stays usable", async () => {
    const client = await connectWyoming(port);
    client.send("run-satellite", { x: 1 });
    const event = await client.next();
    expect(event).toMatchObject({ type: "error", data: { code: "unknown-event" } });
    client.send("ping", { text: "still there?" });
    expect(await client.next()).toEqual({ type: "pong", data: { text: "still there?" } });
    client.close();
  });

  it("a 1 MB transcript is refused (in the data block or inline) and a long one is not handled", async () => {
    const huge = "turn on the lights ".repeat(55_000);
    await refused(wireEvent("transcript", { text: huge }), "data-too-long");
    await refused(
      `${JSON.stringify({ type: "transcript", data: { text: huge } })}\n`,
      "header-too-long",
    );
    const long = await assistTurn(port, "lights ".repeat(500), {
      conversation_id: "01JF8ZQ3V9M7W6K5T4S3R2P1N2",
      satellite_id: "assist_satellite.kitchen",
    });
    expect(long.type).toBe("not-handled");
    expect(long.data.text).toContain("too long");
  });

  it("a length that claims more than is sent, and a slow sender, are closed while other turns go on", async () => {
    const lying = await connectWyoming(port);
    lying.write('{"type":"transcript","data_length":100}\n{"text":"hi"}');
    const slow = await connectWyoming(port);
    const header = Buffer.from(wireEvent("transcript", { text: "slowly" }));
    let sent = 0;
    const trickle = setInterval(() => {
      if (sent < header.byteLength) slow.write(header.subarray(sent, sent + 1));
      sent++;
    }, 400);
    try {
      // Meanwhile a normal turn is answered.
      model.enqueue(openaiText("Done."));
      const turn = await assistTurn(port, "Turn off the hallway light", {
        conversation_id: "01JF8ZQ3V9M7W6K5T4S3R2P1N3",
        satellite_id: "assist_satellite.hallway",
      });
      expect(turn).toMatchObject({ type: "handled", data: { text: "Done." } });
      const lied = await lying.next(20_000);
      expect(lied).toMatchObject({ type: "error", data: { code: "timeout" } });
      expect(await lying.closed()).toBe(true);
      const cut = await slow.next(20_000);
      expect(cut).toMatchObject({ type: "error", data: { code: "timeout" } });
      expect(await slow.closed()).toBe(true);
      // It never got the whole event: no turn ran for it.
      expect(sent).toBeLessThan(header.byteLength);
    } finally {
      clearInterval(trickle);
      lying.close();
      slow.close();
    }
  }, 60_000);

  it("1,000 connections at once: the box keeps a bounded number, refuses the rest, and still answers", async () => {
    const pid = service.child.pid ?? 0;
    const before = rssKiB(pid);
    const attempts = await Promise.allSettled(
      Array.from({ length: 1000 }, () => connectWyoming(port)),
    );
    const clients = attempts.flatMap((a) => (a.status === "fulfilled" ? [a.value] : []));
    // Every connection beyond the limit is told so and closed.
    const outcomes = await Promise.all(
      clients.map((c) =>
        c.next(15_000).then(
          (e) => e.data.code,
          () => "open",
        ),
      ),
    );
    const busy = outcomes.filter((o) => o === "busy").length;
    expect(busy).toBeGreaterThanOrEqual(clients.length - 32);
    const after = rssKiB(pid);
    for (const c of clients) c.close();
    // Bounded: far less than what 1,000 buffered connections would hold.
    expect(after - before).toBeLessThan(64 * 1024);
    await new Promise((r) => setTimeout(r, 500));
    model.enqueue(openaiText("Still here."));
    const turn = await assistTurn(port, "Are you there?", {
      conversation_id: "01JF8ZQ3V9M7W6K5T4S3R2P1N4",
      satellite_id: "assist_satellite.kitchen",
    });
    expect(turn).toMatchObject({ type: "handled", data: { text: "Still here." } });
  }, 90_000);

  it("a peer outside wyoming.allowFrom is closed without a word", async () => {
    const outsider = await connectWyoming(port, { localAddress: "127.0.0.2" });
    outsider.send("describe");
    expect(await outsider.closed()).toBe(true);
    await expect(outsider.next(1000)).rejects.toThrow("connection closed");
    // Twenty more refused peers: one log line a minute, not one each (a peer outside the
    // list needs no permission to connect, so it must not be able to flood the journal).
    for (let i = 0; i < 20; i++) {
      const again = await connectWyoming(port, { localAddress: "127.0.0.2" });
      expect(await again.closed()).toBe(true);
    }
    expect(service.output().match(/refused a peer outside wyoming\.allowFrom/g)).toHaveLength(1);
    await stillServes();
    const status = JSON.parse(readFileSync(join(home, "wyoming-status.json"), "utf8")) as {
      connections: { refused: number };
    };
    // The status file is written at most once a second.
    await new Promise((r) => setTimeout(r, 1500));
    const later = JSON.parse(readFileSync(join(home, "wyoming-status.json"), "utf8")) as {
      connections: { refused: number };
      rooms: { room: string }[];
      lastRequest: { outcome: string };
    };
    expect(later.connections.refused).toBeGreaterThanOrEqual(status.connections.refused);
    expect(later.connections.refused).toBeGreaterThan(0);
    expect(later.rooms.map((r) => r.room)).toContain("assist_satellite.bedroom");
    expect(later.lastRequest.outcome).toBe("handled");
  });

  it("clawbox channels status and doctor show the voice server, its rooms and the last outcome", async () => {
    const env = { CLAWBOX_HOME: home };
    const listed = await spawnCli(["channels", "status", "--json"], env);
    expect(listed.code).toBe(0);
    const rows = (JSON.parse(listed.stdout) as { channels: Record<string, unknown>[] }).channels;
    const row = rows.find((r) => r.channel === "wyoming");
    expect(row).toMatchObject({ enabled: true, state: "connected" });
    expect(String(row?.reason)).toMatch(
      /Home Assistant voice on 127\.0\.0\.1:\d+ as "clawbox [^"]+" \(mDNS: off\); \d+ rooms seen: .*assist_satellite\.kitchen.*; last request .* from assist_satellite\.kitchen: handled/,
    );
    const text = await spawnCli(["channels", "status"], env);
    expect(text.stdout).toContain("wyoming: connected");
    const doctor = await spawnCli(["doctor"], env);
    expect(doctor.stdout).toMatch(/ok +wyoming: listening on 127\.0\.0\.1:\d+ as "clawbox /);
  }, 60_000);
});
