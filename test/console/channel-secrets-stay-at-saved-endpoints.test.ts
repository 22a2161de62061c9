/**
 * The Channels page's Test and Save never send a stored secret to a new address. The
 * attack: a console request that points QQ's token URL (or WeCom's API base, the bot's
 * long-connection URL, the MQTT broker) at a listener of its own and leaves the secret
 * blank, which means "the stored one". Against a real `clawbox run`; the listener is a
 * raw TCP socket on 127.0.0.1 that records every byte it gets, so an HTTP request, a
 * WebSocket upgrade and an MQTT CONNECT all count.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ConsoleSession, consoleLogin } from "../support/console-session.ts";
import { type RunningService, startService } from "../support/run-service.ts";

const TOKEN = "channel-endpoint-token-0123";
const QQ_SECRET = "qq-stored-secret-5531";
const CORP_SECRET = "corp-stored-secret-8812";
const BOT_SECRET = "bot-stored-secret-2290";
const MQTT_PASSWORD = "mqtt-stored-password-7741";
const AES_KEY = "a".repeat(43);

/** A TCP listener that keeps what it receives and hangs up after a short quiet spell. */
interface Listener {
  url: string;
  port: number;
  received(): string;
  close(): Promise<void>;
}

async function listen(): Promise<Listener> {
  let got = "";
  const server: Server = createServer((socket) => {
    got += "<connection>";
    let idle = setTimeout(() => socket.destroy(), 300);
    socket.on("data", (chunk) => {
      got += chunk.toString("latin1");
      clearTimeout(idle);
      idle = setTimeout(() => socket.destroy(), 300);
    });
    socket.on("error", () => {});
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    received: () => got,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

let home: string;
let configFile: string;
let box: RunningService;
let console_: ConsoleSession;
let saved: Listener;
let thief: Listener;

beforeAll(async () => {
  home = mkdtempSync(join(tmpdir(), "clawbox-channel-endpoints-"));
  configFile = join(home, "clawbox.json");
  saved = await listen();
  thief = await listen();
  // Every channel disabled, so only a Test talks to the saved address.
  writeFileSync(
    configFile,
    `// the box
{
  server: { token: "${TOKEN}" },
  memory: { enabled: false },
  channels: {
    qq: { enabled: false, appId: "102030", clientSecret: "${QQ_SECRET}", tokenUrl: "${saved.url}/app/getAppAccessToken", apiBase: "${saved.url}" },
    wecom: {
      app: { enabled: false, corpId: "ww1", corpSecret: "${CORP_SECRET}", agentId: 1000002, token: "cb-token-1", encodingAESKey: "${AES_KEY}", apiBase: "${saved.url}" },
      bot: { enabled: false, botId: "bot-1", secret: "${BOT_SECRET}", wsUrl: "ws://127.0.0.1:${saved.port}" },
    },
  },
  mqtt: { enabled: false, url: "mqtt://127.0.0.1:${saved.port}", username: "ha", password: "${MQTT_PASSWORD}" },
}
`,
  );
  box = await startService(["--port", "0"], { CLAWBOX_HOME: home, CLAWBOX_CONFIG: configFile });
  console_ = await consoleLogin(box.url, TOKEN);
}, 90_000);

afterAll(async () => {
  box?.child.kill("SIGTERM");
  await box?.exited;
  await saved?.close();
  await thief?.close();
  if (home) rmSync(home, { recursive: true, force: true });
});

const test = async (form: string, values: Record<string, unknown>) => {
  const res = await console_.post(`channels/${form}/test`, { values });
  expect(res.status).toBe(200);
  return (await res.json()) as { ok: boolean; message: string };
};

/** Lets a connection that was started reach the listener before it is checked. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 500));

describe("a stored channel secret goes only to the saved address", () => {
  it("Test with a new token URL, API base, long-connection URL or broker and a blank secret sends nothing anywhere", async () => {
    const attacks: [string, Record<string, unknown>, string][] = [
      ["qq", { tokenUrl: `${thief.url}/steal` }, "AppSecret"],
      ["qq", { apiBase: thief.url }, "AppSecret"],
      ["wecom-app", { apiBase: thief.url }, "Secret"],
      ["wecom-bot", { wsUrl: `ws://127.0.0.1:${thief.port}` }, "Secret"],
      ["mqtt", { url: `mqtt://127.0.0.1:${thief.port}` }, "Password"],
      ["mqtt", { rejectUnauthorized: false }, "Password"],
    ];
    const answers = [];
    for (const [form, values] of attacks) answers.push(await test(form, values));
    await settle();
    expect(thief.received()).toBe("");
    expect(saved.received()).toBe("");
    for (const [i, [form, values, secret]] of attacks.entries()) {
      expect(answers[i]?.ok, `${form} ${JSON.stringify(values)}`).toBe(false);
      expect(answers[i]?.message).toContain(`type the ${secret} again`);
    }
  });

  it("Save that moves a stored secret's address is refused in plain words and leaves the file as it was", async () => {
    const before = readFileSync(configFile, "utf8");
    const res = await console_.post("channels/qq", {
      values: { tokenUrl: `${thief.url}/steal` },
    });
    expect(res.status).toBe(400);
    const body = (await res.json()) as { error: { message: string } };
    expect(body.error.message).toBe(
      "Token URL changed, so type the AppSecret again to save with it: the stored AppSecret is only sent to the saved address.",
    );
    const mqtt = await console_.post("channels/mqtt", {
      values: { url: `mqtt://127.0.0.1:${thief.port}` },
    });
    expect(mqtt.status).toBe(400);
    expect(readFileSync(configFile, "utf8")).toBe(before);
    await settle();
    expect(thief.received()).toBe("");
  });

  it("a secret typed again goes to the new address; the stored one still goes to the saved address", async () => {
    const typed = "typed-again-secret-4410";
    await test("qq", { tokenUrl: `${thief.url}/token`, clientSecret: typed });
    await test("wecom-app", { apiBase: thief.url, corpSecret: typed });
    await settle();
    expect(thief.received()).toContain(typed);
    expect(thief.received()).not.toContain(QQ_SECRET);
    expect(thief.received()).not.toContain(CORP_SECRET);
    // Nothing moved: the stored secrets are used where they were saved to go.
    await test("qq", { appId: "102030" });
    await test("wecom-app", {});
    await test("mqtt", { username: "ha" });
    await settle();
    expect(saved.received()).toContain(QQ_SECRET);
    expect(saved.received()).toContain(CORP_SECRET);
    expect(saved.received()).toContain(MQTT_PASSWORD);
    expect(thief.received()).not.toContain(MQTT_PASSWORD);
  });
});
