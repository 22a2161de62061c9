/** Runs the real `clawbox run` program against the fake QQ platform and a fake OpenAI model server. */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openaiText, type ScriptedServer, startFakeOpenAI } from "../fakes/openai-server.ts";
import { FakeQqPlatform, waitUntil } from "../fakes/qq-platform.ts";
import { CLAWBOX_BIN } from "../support/spawn-cli.ts";

export { openaiText };

export interface QqRun {
  home: string;
  platform: FakeQqPlatform;
  model: ScriptedServer;
  /** Starts `clawbox run`; resolves when it listens. */
  start(): Promise<ChildProcess>;
  /** Starts `clawbox run` and waits until it has identified on the fake gateway. */
  startIdentified(): Promise<ChildProcess>;
  /** HTTP base URL of the latest started process. */
  url(): string;
  stderr(): string;
  close(): Promise<void>;
}

export async function prepareQqRun(
  qq: Record<string, unknown> = {},
  options: { platform?: FakeQqPlatform; env?: Record<string, string> } = {},
): Promise<QqRun> {
  const platform = options.platform ?? new FakeQqPlatform().start();
  const model = await startFakeOpenAI();
  const home = writeRunHome(model, {
    qq: {
      appId: platform.appId,
      clientSecret: platform.clientSecret,
      apiBase: platform.url,
      tokenUrl: platform.tokenUrl,
      ...qq,
    },
  });
  const children: ChildProcess[] = [];
  let stderr = "";
  let url = "";
  const identifies = () => platform.connections.filter((c) => c.some((f) => f.op === 2)).length;
  const run: QqRun = {
    url: () => url,
    async startIdentified() {
      const before = identifies();
      const child = await run.start();
      await waitUntil(() => identifies() > before, 15_000, "the gateway identify");
      return child;
    },
    home,
    platform,
    model,
    stderr: () => stderr,
    start() {
      return new Promise((resolve, reject) => {
        const child = spawn(CLAWBOX_BIN, ["run", "--port", "0"], {
          env: { ...process.env, CLAWBOX_HOME: home, CLAWBOX_CONFIG: "", ...options.env },
          stdio: ["ignore", "pipe", "pipe"],
        });
        children.push(child);
        child.stderr?.on("data", (d) => {
          stderr += d;
        });
        child.stdout?.on("data", (d) => {
          const listening = /listening on (http:\/\/\S+)/.exec(String(d));
          if (listening?.[1]) {
            url = listening[1];
            resolve(child);
          }
        });
        child.on("exit", (code, signal) =>
          reject(new Error(`clawbox run exited (${code ?? signal}): ${stderr.slice(-1500)}`)),
        );
      });
    },
    async close() {
      for (const child of children)
        if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
      await platform.stop();
      await model.close();
    },
  };
  return run;
}

/**
 * A fresh CLAWBOX_HOME whose clawbox.json answers with the fake OpenAI `model` and
 * enables `channels` (memory off, so a start is quick).
 */
export function writeRunHome(model: ScriptedServer, channels: Record<string, unknown>): string {
  const home = mkdtempSync(join(tmpdir(), "clawbox-channel-run-"));
  writeFileSync(
    join(home, "clawbox.json"),
    JSON.stringify({ models: fakeModelsSection(model.url), memory: { enabled: false }, channels }),
  );
  return home;
}

/** `models` of a clawbox.json whose only model is the fake OpenAI server at `url`. */
export function fakeModelsSection(url: string): Record<string, unknown> {
  return {
    primary: "cloud",
    fallbacks: [],
    providers: {
      cloud: {
        kind: "openai",
        baseUrl: `${url}/v1`,
        model: "fake",
        authProfiles: [{ id: "k", apiKey: "sk-test-key-000000" }],
        timeoutMs: 60_000,
      },
    },
  };
}

/** SIGKILLs the process and waits until it is gone. */
export function kill9(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once("exit", () => resolve());
    child.kill("SIGKILL");
  });
}
