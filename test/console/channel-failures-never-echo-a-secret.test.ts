/**
 * A platform that echoes the credentials it was sent into its error message cannot make
 * the box show them. The attack: QQ's token URL and WeCom's API base (as saved) point at
 * a server that refuses every request and quotes the request in its error, the AppSecret
 * or corpsecret included. The refusal becomes the QQ channel's live state reason and the
 * Test button's answer; neither may carry a secret: not on the unauthenticated
 * `/health`, the console's Channels and Status answers, `clawbox channels status`, nor a
 * Test answer, whether the secret was stored at start, saved from the console while the
 * box runs, or typed into the Test request. Against a real `clawbox run`; the echoing
 * server is test/support/credential-echo-server.ts.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ConsoleSession, consoleLogin } from "../support/console-session.ts";
import {
  type CredentialEchoServer,
  startCredentialEchoServer,
} from "../support/credential-echo-server.ts";
import { type RunningService, startService } from "../support/run-service.ts";
import { spawnCli } from "../support/spawn-cli.ts";

const TOKEN = "echo-secret-console-token-0042";
const QQ_SECRET = "QQSECRET-55555555";
const QQ_SAVED_LATER = "QQSAVED-77777777";
const QQ_TYPED = "QQTYPED-33333333";
const CORP_SECRET = "WECOM-STORED-111111";
const CORP_SAVED_LATER = "NEWWECOM-999999";
const CORP_TYPED = "WECOMTYPED-424242";
const AES_KEY = "b".repeat(43);
const ALL_SECRETS = [
  QQ_SECRET,
  QQ_SAVED_LATER,
  QQ_TYPED,
  CORP_SECRET,
  CORP_SAVED_LATER,
  CORP_TYPED,
];

let home: string;
let configFile: string;
let echo: CredentialEchoServer;
let box: RunningService;
let console_: ConsoleSession;
const env = () => ({ CLAWBOX_HOME: home, CLAWBOX_CONFIG: configFile });

beforeAll(async () => {
  home = mkdtempSync(join(tmpdir(), "clawbox-echoed-secrets-"));
  configFile = join(home, "clawbox.json");
  echo = await startCredentialEchoServer();
  writeFileSync(
    configFile,
    `{
  server: { token: "${TOKEN}" },
  memory: { enabled: false },
  channels: {
    qq: { enabled: true, mode: "websocket", appId: "102030", clientSecret: "${QQ_SECRET}", tokenUrl: "${echo.url}/app/getAppAccessToken", apiBase: "${echo.url}" },
    wecom: {
      app: { enabled: false, corpId: "ww1", corpSecret: "${CORP_SECRET}", agentId: 1000002, token: "cb-token-1", encodingAESKey: "${AES_KEY}", apiBase: "${echo.url}" },
    },
  },
}
`,
  );
  box = await startService(["--port", "0"], env());
  console_ = await consoleLogin(box.url, TOKEN);
}, 90_000);

afterAll(async () => {
  box?.child.kill("SIGTERM");
  await box?.exited;
  await echo?.close();
  if (home) rmSync(home, { recursive: true, force: true });
});

interface Health {
  channels: { channel: string; state: string; reason?: string }[];
}

const qqOnHealth = async () => {
  const health = (await (await fetch(`${box.url}/health`)).json()) as Health;
  return health.channels.find((c) => c.channel === "qq");
};

/** Waits until the echoed refusal is QQ's state reason after `secret` reached the server. */
async function qqRefusedWith(secret: string): Promise<void> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const qq = await qqOnHealth();
    if (
      echo.received().includes(secret) &&
      qq?.state === "error" &&
      qq.reason?.includes("invalid appid or secret")
    )
      return;
    if (Date.now() > deadline)
      throw new Error(`QQ never reported the echoed refusal: ${JSON.stringify(qq)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const expectNoSecret = (what: string, text: string) => {
  for (const secret of ALL_SECRETS) expect(text, `${what} carries ${secret}`).not.toContain(secret);
};

/** Every place the QQ channel's state reason is shown, as text. */
async function everyStatusAnswer(): Promise<Record<string, string>> {
  const cli = await spawnCli(["channels", "status", "--json"], env());
  expect(cli.code, cli.stderr).toBe(0);
  return {
    "/health": await (await fetch(`${box.url}/health`)).text(),
    "/console/api/channels": await (await console_.get("channels")).text(),
    "/console/api/status": await (await console_.get("status")).text(),
    "clawbox channels status": cli.stdout,
  };
}

const test = async (form: string, values: Record<string, unknown>) => {
  const res = await console_.post(`channels/${form}/test`, { values });
  expect(res.status).toBe(200);
  return (await res.json()) as { ok: boolean; message: string };
};

describe("a platform's error that echoes the credentials never shows them", () => {
  it("QQ's state reason on /health, the console and `channels status` has the secret redacted", async () => {
    await qqRefusedWith(QQ_SECRET);
    // The attack works: the platform did quote the secret back.
    expect(echo.received()).toContain(`"clientSecret":"${QQ_SECRET}"`);
    const reason = (await qqOnHealth())?.reason ?? "";
    expect(reason).toContain("invalid appid or secret");
    expect(reason).toContain("[redacted]");
    for (const [where, text] of Object.entries(await everyStatusAnswer())) {
      expect(text, where).toContain("invalid appid or secret");
      expectNoSecret(where, text);
    }
  }, 60_000);

  it("a QQ secret saved from the console while the box runs is redacted from the reason too", async () => {
    const res = await console_.post("channels/qq", { values: { clientSecret: QQ_SAVED_LATER } });
    expect(res.status).toBe(200);
    expectNoSecret("the save's answer", await res.text());
    await qqRefusedWith(QQ_SAVED_LATER);
    for (const [where, text] of Object.entries(await everyStatusAnswer())) {
      expect(text, where).toContain("invalid appid or secret");
      expectNoSecret(where, text);
    }
  }, 60_000);

  it("QQ's Test answer does not echo the stored secret, nor one typed into the request", async () => {
    const stored = await test("qq", {});
    expect(stored.ok).toBe(false);
    expect(stored.message).toContain("QQ said: invalid appid or secret");
    expect(stored.message).toContain("[redacted]");
    expectNoSecret("QQ Test with the stored secret", stored.message);
    const typed = await test("qq", { clientSecret: QQ_TYPED });
    expect(echo.received()).toContain(QQ_TYPED);
    expect(typed.message).toContain("QQ said: invalid appid or secret");
    expect(typed.message).toContain("[redacted]");
    expectNoSecret("QQ Test with a typed secret", typed.message);
  }, 30_000);

  it("WeCom app's Test answer does not echo the stored, the newly saved or a typed corpsecret", async () => {
    const before = await test("wecom-app", {});
    expect(echo.received()).toContain(`corpsecret=${CORP_SECRET}`);
    expect(before.ok).toBe(false);
    expect(before.message).toContain("invalid credential");
    expect(before.message).toContain("[redacted]");
    expectNoSecret("WeCom Test with the stored secret", before.message);
    const saved = await console_.post("channels/wecom-app", {
      values: { corpSecret: CORP_SAVED_LATER },
    });
    expect(saved.status).toBe(200);
    const after = await test("wecom-app", {});
    expect(echo.received()).toContain(`corpsecret=${CORP_SAVED_LATER}`);
    expect(after.message).toContain("[redacted]");
    expectNoSecret("WeCom Test with the secret saved at runtime", after.message);
    const typed = await test("wecom-app", { corpSecret: CORP_TYPED });
    expect(echo.received()).toContain(`corpsecret=${CORP_TYPED}`);
    expect(typed.message).toContain("[redacted]");
    expectNoSecret("WeCom Test with a typed secret", typed.message);
  }, 30_000);
});
