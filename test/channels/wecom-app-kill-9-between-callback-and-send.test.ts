/**
 * `kill -9` of the real `clawbox run` between the WeCom callback (already answered
 * with an empty 200) and the message/send, then a restart: the stored message is
 * answered exactly once, and the platform's retry of the same POST after the restart
 * is not answered again. Fakes: the WeCom API and an OpenAI-compatible model server
 * whose first request never answers (the model is "thinking" when the kill lands).
 * And a kill while message/send is in flight (the platform has delivered the reply, the
 * box never heard back): the send asked for WeCom's duplicate check, so the resend after
 * the restart is dropped by the platform and the person sees the reply once.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { type ScriptedServer, startFakeOpenAI } from "../fakes/openai-server.ts";
import { type FakeWeComApi, startFakeWeComApi } from "../fakes/wecom-api-server.ts";
import {
  type CallbackSecrets,
  postMessage,
  verifyUrl,
  wecomAppConfig,
} from "../fakes/wecom-callback-sender.ts";
import { cloudOnlyConfig } from "../support/openai-provider-fixture.ts";
import { type RunningService, startService } from "../support/run-service.ts";

const SECRETS: CallbackSecrets = {
  token: "kill9token",
  encodingAESKey: "abcdefghijklmnopqrstuvwxyz0123456789ABCDEFG",
  corpId: "ww0123456789abcdef",
};
const CORP_SECRET = "corp-secret-kill9";

let api: FakeWeComApi | undefined;
let model: ScriptedServer | undefined;
const services: RunningService[] = [];

afterEach(async () => {
  for (const service of services.splice(0)) {
    service.child.kill("SIGKILL");
    await service.exited;
  }
  await api?.close();
  await model?.close();
});

async function until(check: () => boolean | Promise<boolean>, what: string, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function start(home: string): Promise<{ service: RunningService; callback: string }> {
  const service = await startService(["--port", "0"], { CLAWBOX_HOME: home, CLAWBOX_THREADS: "1" });
  services.push(service);
  const callback = `${service.url}/channels/wecom/app`;
  // Channels connect after READY: wait until the callback route is served.
  await until(
    async () => (await verifyUrl(callback, SECRETS, "ping")).status === 200,
    "the callback route",
  );
  return { service, callback };
}

function boxHome(fakeApi: FakeWeComApi, fakeModel: ScriptedServer): string {
  const home = mkdtempSync(join(tmpdir(), "clawbox-wecom-kill-"));
  writeFileSync(
    join(home, "clawbox.json"),
    JSON.stringify(
      cloudOnlyConfig(fakeModel.url, {
        channels: { wecom: { app: wecomAppConfig(SECRETS, CORP_SECRET, fakeApi.url) } },
      }),
    ),
  );
  return home;
}

describe("WeCom app across kill -9", () => {
  it("answers a message once when the process dies between the callback and the send", async () => {
    const fakeApi = startFakeWeComApi({ corpId: SECRETS.corpId, corpSecret: CORP_SECRET });
    api = fakeApi;
    const fakeModel = await startFakeOpenAI();
    model = fakeModel;
    fakeModel.enqueue({ kind: "hang" });
    const home = boxHome(fakeApi, fakeModel);
    const message = {
      fromUser: "zhangsan",
      msgId: "8800000001",
      msgType: "text" as const,
      content: "turn on the light",
    };

    const first = await start(home);
    const response = await postMessage(first.callback, SECRETS, message);
    expect(response.status).toBe(200);
    await until(() => fakeModel.requests.length === 1, "the model call");
    first.service.child.kill("SIGKILL");
    expect((await first.service.exited).signal).toBe("SIGKILL");
    expect(fakeApi.sent).toHaveLength(0);

    const second = await start(home);
    await until(() => fakeApi.sent.length === 1, "the reply after the restart");
    // The platform retries the same POST (it never got an answer it liked): still once.
    expect((await postMessage(second.callback, SECRETS, message)).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    expect(fakeApi.sent).toEqual([
      { touser: "zhangsan", msgtype: "text", agentid: 1000002, content: "ok" },
    ]);
    expect(fakeModel.requests).toHaveLength(2);
  });

  it("shows a reply once when the process dies while message/send is in flight", async () => {
    const fakeApi = startFakeWeComApi({ corpId: SECRETS.corpId, corpSecret: CORP_SECRET });
    api = fakeApi;
    const fakeModel = await startFakeOpenAI();
    model = fakeModel;
    const home = boxHome(fakeApi, fakeModel);
    fakeApi.holdNextSends(1);
    const message = {
      fromUser: "lisi",
      msgId: "8800000002",
      msgType: "text" as const,
      content: "is the door locked?",
    };

    const first = await start(home);
    expect((await postMessage(first.callback, SECRETS, message)).status).toBe(200);
    // Delivered to the person; the box is killed before the platform's answer reaches it.
    await until(() => fakeApi.sent.length === 1, "the reply reaching the platform");
    first.service.child.kill("SIGKILL");
    await first.service.exited;
    fakeApi.release();

    await start(home);
    await until(() => fakeApi.suppressed() === 1, "the resend after the restart");
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(fakeApi.sent).toEqual([
      { touser: "lisi", msgtype: "text", agentid: 1000002, content: "ok" },
    ]);
    expect(fakeModel.requests).toHaveLength(1);
  });
});
