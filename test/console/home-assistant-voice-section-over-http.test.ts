/**
 * The Channels page's "Home Assistant voice" section at the HTTP level, against a real
 * `clawbox run` with the Wyoming server on: the section's settings and live status
 * (listening address, announced name, rooms seen), its Test (a `describe` as HA sends
 * it), and a save refused with the field named when the address goes beyond this
 * machine without allowed addresses (the file unchanged), accepted with them.
 */
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ConsoleSession, consoleLogin } from "../support/console-session.ts";
import { type RunningService, startService } from "../support/run-service.ts";

const TOKEN = "console-voice-http-token-0123";
let home: string;
let configFile: string;
let box: RunningService;
let session: ConsoleSession;
let port: number;

interface Form {
  id: string;
  title: string;
  configured: boolean;
  values: Record<string, unknown>;
  status: { state: string; reason: string | null } | null;
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const address = server.address();
  const found = typeof address === "object" && address ? address.port : 0;
  await new Promise<void>((r) => server.close(() => r()));
  return found;
}

beforeAll(async () => {
  home = mkdtempSync(join(tmpdir(), "clawbox-console-voice-"));
  configFile = join(home, "clawbox.json");
  port = await freePort();
  writeFileSync(
    configFile,
    JSON.stringify({
      server: { token: TOKEN },
      memory: { enabled: false },
      wyoming: { enabled: true, port },
    }),
  );
  box = await startService(["--port", "0"], { CLAWBOX_HOME: home, CLAWBOX_CONFIG: "" });
  session = await consoleLogin(box.url, TOKEN);
}, 90_000);

afterAll(async () => {
  box?.child.kill("SIGTERM");
  await box?.exited;
});

const voice = async (): Promise<Form | undefined> =>
  ((await (await session.get("channels")).json()) as { forms: Form[] }).forms.find(
    (f) => f.id === "wyoming",
  );

describe("the Channels page's Home Assistant voice section", () => {
  it("shows the settings and the live server: address, announced name, rooms", async () => {
    let form = await voice();
    for (let i = 0; i < 50 && form?.status?.state !== "connected"; i++) {
      await new Promise((r) => setTimeout(r, 200));
      form = await voice();
    }
    expect(form).toMatchObject({
      title: "Home Assistant voice",
      configured: true,
      values: { enabled: true, port, host: "127.0.0.1" },
      status: { state: "connected" },
    });
    expect(form?.status?.reason).toContain(
      `Home Assistant voice on 127.0.0.1:${port} as "clawbox `,
    );
    expect(form?.status?.reason).toContain("no rooms seen yet");
  });

  it("Test asks the server describe, as Home Assistant does", async () => {
    const result = (await (await session.post("channels/wyoming/test", { values: {} })).json()) as {
      ok: boolean;
      message: string;
    };
    expect(result).toEqual({
      ok: true,
      message: `The voice server at 127.0.0.1:${port} answered as Home Assistant expects.`,
    });
  });

  it("refuses an address beyond this machine without allowed addresses, naming the field", async () => {
    const before = readFileSync(configFile, "utf8");
    const refused = await session.post("channels/wyoming", { values: { host: "0.0.0.0" } });
    expect(refused.status).toBe(400);
    const body = (await refused.json()) as { error: { field?: string; message: string } };
    expect(body.error.field).toBe("allowFrom");
    expect(body.error.message).toContain("no authentication");
    expect(readFileSync(configFile, "utf8")).toBe(before);
    const saved = await session.post("channels/wyoming", {
      values: { host: "0.0.0.0", allowFrom: "192.168.1.10, 192.168.1.0/24" },
    });
    expect(saved.status).toBe(200);
    const file = JSON.parse(readFileSync(configFile, "utf8")) as {
      wyoming: Record<string, unknown>;
    };
    expect(file.wyoming).toMatchObject({
      host: "0.0.0.0",
      allowFrom: ["192.168.1.10", "192.168.1.0/24"],
    });
  });
});
