/**
 * `clawbox models use` while `clawbox run` is running: the config file is edited in place
 * and the service picks the change up (it polls the file) without a restart; the next
 * turn runs on the new model file.
 */
import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { Store } from "../../src/store/index.ts";
import { runCli } from "../support/run-cli.ts";
import { startService } from "../support/run-service.ts";
import { HAVE_STORIES, STORIES_MODEL } from "../support/stories-model.ts";

async function chatModelOf(url: string, home: string, session: string): Promise<string | null> {
  const response = await fetch(`${url}/api/chat`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ message: "Once upon a time", session }),
  });
  const body = await response.text();
  expect(response.status, body).toBe(200);
  const store = Store.open({ path: join(home, "clawbox.db") });
  try {
    return store.sessions.list().find((s) => s.sessionKey.endsWith(`:${session}`))?.model ?? null;
  } finally {
    store.close();
  }
}

describe.skipIf(!HAVE_STORIES)("clawbox models use with the service running", () => {
  it("the running service switches to the chosen model file", async () => {
    const home = mkdtempSync(join(tmpdir(), "clawbox-models-use-"));
    const first = join(home, "stories-first.gguf");
    const second = join(home, "stories-second.gguf");
    copyFileSync(STORIES_MODEL, first);
    copyFileSync(STORIES_MODEL, second);
    writeFileSync(
      join(home, "clawbox.json"),
      `{
  // the first model
  models: { providers: { local: { kind: "local", path: "${first}", threads: 1, maxTokens: 16, toolCalling: "off" } } },
  memory: { enabled: false },
}
`,
    );
    const service = await startService(["--port", "0"], { CLAWBOX_HOME: home });
    try {
      expect(await chatModelOf(service.url, home, "before")).toBe("local/stories-first");
      const used = await runCli(["--home", home, "models", "use", second]);
      expect(used.code).toBe(0);
      await service.waitFor("model settings reloaded", 30_000);
      expect(await chatModelOf(service.url, home, "after")).toBe("local/stories-second");
    } finally {
      service.child.kill("SIGTERM");
      await service.exited;
      rmSync(home, { recursive: true, force: true });
    }
  }, 120_000);
});
