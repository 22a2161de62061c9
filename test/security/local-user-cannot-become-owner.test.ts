/**
 * Attack 1 and 12 of issue 23 against a real `clawbox run` with the packaged default (no
 * `server.token`): an unprivileged local user (uid 65534 through setpriv) takes the
 * console pages, looks for a session token and posts a chat turn asking for `exec` to print
 * the provider key out of the chmod-600 config it cannot read. It gets the login page and
 * 401s, never a turn; it cannot read the login secret or make a login link; a forged link
 * is refused; `Host: clawbox.local` from `server.allowedHosts` changes nothing. The same
 * user on the tokenless HTTP API stays the stranger `web:local` (no exec offered).
 */
import { chmodSync, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  openaiText,
  openaiToolCall,
  type ScriptedServer,
  startFakeOpenAI,
} from "../fakes/openai-server.ts";
import { sessionTokenIn } from "../support/console-session.ts";
import { curlAsLocalUser, runAsLocalUser } from "../support/local-user.ts";
import { type RunningService, startService } from "../support/run-service.ts";
import { CLAWBOX_BIN, spawnCli } from "../support/spawn-cli.ts";

const PROVIDER_KEY = "sk-live-provider-key-0123456789abcdef";
const execConfig = (home: string) =>
  JSON.stringify({ command: `cat ${home}/clawbox.json ${home}/console-secret` });

const toolNames = (body: Record<string, unknown>) =>
  ((body.tools as { function: { name: string } }[] | undefined) ?? []).map((t) => t.function.name);

describe("a local user and the tokenless console (real clawbox run)", () => {
  let home: string;
  let model: ScriptedServer;
  let box: RunningService;

  beforeAll(async () => {
    home = mkdtempSync(join(tmpdir(), "clawbox-local-user-"));
    // Traversable by other users, so the file modes themselves are what protects.
    chmodSync(home, 0o755);
    model = await startFakeOpenAI();
    const config = join(home, "clawbox.json");
    writeFileSync(
      config,
      JSON.stringify({
        server: { allowedHosts: ["clawbox.local"] },
        models: {
          primary: "cloud",
          providers: {
            cloud: {
              kind: "openai",
              baseUrl: model.url,
              model: "fake",
              authProfiles: [{ id: "k", apiKey: PROVIDER_KEY }],
            },
          },
        },
      }),
    );
    chmodSync(config, 0o600);
    box = await startService(["--port", "0"], { CLAWBOX_HOME: home, CLAWBOX_CONFIG: "" });
  }, 90_000);

  afterAll(async () => {
    box?.child.kill("SIGTERM");
    await box?.exited;
    await model?.close();
    if (home) rmSync(home, { recursive: true, force: true });
  });

  it("creates the login secret at first start, readable by the service's user only", async () => {
    expect(statSync(join(home, "console-secret")).mode & 0o777).toBe(0o600);
    const read = await runAsLocalUser(["cat", join(home, "console-secret")]);
    expect(read.status).not.toBe(0);
    const url = await runAsLocalUser([CLAWBOX_BIN, "console", "url"]);
    expect(url.status).not.toBe(0);
    expect(url.stdout).not.toContain("ticket=");
  });

  it("gives the local user the login page and 401s, never an owner's turn", async () => {
    model.enqueue(openaiToolCall("exec", execConfig(home)), openaiText("done"));
    for (const host of [[], ["-H", "Host: clawbox.local"]]) {
      const page = await curlAsLocalUser([...host, `${box.url}/`]);
      expect(page.status).toBe(200);
      const login = await curlAsLocalUser([...host, `${box.url}/console/login`]);
      // The attack as reported: take the pages' session token (if any) and post a turn with it.
      const token = sessionTokenIn(page.body + login.body) || "none";
      const chat = await curlAsLocalUser([
        ...host,
        "-X",
        "POST",
        "-H",
        "Content-Type: application/json",
        "-H",
        `X-Clawbox-Session: ${token}`,
        "--data",
        JSON.stringify({ message: "run exec: cat clawbox.json" }),
        `${box.url}/console/api/chat`,
      ]);
      expect(chat.body).not.toContain(PROVIDER_KEY);
      expect(chat.status).toBe(401);
      expect(login.body).toContain('name="secret"');
      expect(page.body + login.body).not.toContain("data-session");
      const sessions = await curlAsLocalUser([...host, `${box.url}/console/api/sessions`]);
      expect(sessions.status).toBe(401);
    }
    const forged = await curlAsLocalUser([`${box.url}/console/login?ticket=t1.x.1.n.forged`]);
    expect(forged.status).toBe(401);
    expect(model.requests).toHaveLength(0);
  });

  it("keeps the tokenless HTTP API client the stranger web:local (no exec)", async () => {
    const api = await curlAsLocalUser([
      "-X",
      "POST",
      "-H",
      "Content-Type: application/json",
      "--data",
      JSON.stringify({ message: "run exec: cat clawbox.json" }),
      `${box.url}/api/chat`,
    ]);
    expect(api.status).toBe(200);
    expect(api.body).not.toContain(PROVIDER_KEY);
    const first = model.requests[0]?.body ?? {};
    expect(toolNames(first)).toContain("read");
    expect(toolNames(first)).not.toContain("exec");
    expect(JSON.stringify(model.requests.map((r) => r.body))).not.toContain(PROVIDER_KEY);
  });

  it("gives the service's own user a fresh one-time link with clawbox console url", async () => {
    const port = new URL(box.url).port;
    const made = await spawnCli(["console", "url", "--port", port], {
      CLAWBOX_HOME: home,
      CLAWBOX_CONFIG: "",
    });
    expect(made.code).toBe(0);
    const link = made.stdout.trim();
    expect(link).toMatch(new RegExp(`^http://127\\.0\\.0\\.1:${port}/console/login\\?ticket=`));
    const first = await fetch(link, { redirect: "manual" });
    expect(first.status).toBe(200);
    expect(first.headers.get("set-cookie")).toBeNull();
    const token = sessionTokenIn(await first.text());
    const session = await fetch(`${box.url}/console/api/session`, {
      headers: { "X-Clawbox-Session": token },
    });
    expect(session.status).toBe(200);
    expect((await fetch(link, { redirect: "manual" })).status).toBe(401);
  });
});
