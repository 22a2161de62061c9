/**
 * The Home Assistant token against a real `clawbox run` (debug logging) and the real CLI:
 * the box connects to the fake of HA's MCP endpoint with it, and the token shows up in
 * no log line, not in `clawbox config show`, not on the console's pages or answers, not
 * in `clawbox doctor`. A console Test or Save that moves the address without typing the
 * token again is refused and nothing reaches the new address; one that types it is
 * applied live (the link reconnects to the new address with the new token).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FakeHomeAssistant, startFakeHomeAssistant } from "../fakes/home-assistant-mcp.ts";
import { type ConsoleSession, consoleLogin } from "../support/console-session.ts";
import { runCli } from "../support/run-cli.ts";
import { type RunningService, startService } from "../support/run-service.ts";

const SERVER_TOKEN = "server-token-for-the-ha-test-0193";
const HA_TOKEN = "eyJhbGciOiJIUzI1NiJ9.ha-long-lived-token-7f3a9c.c2lnbmF0dXJlLXNpZ24";
const NEW_TOKEN = "eyJhbGciOiJIUzI1NiJ9.second-token-typed-again-51be.c2lnbg";

let home: string;
let configFile: string;
let box: RunningService;
let page: ConsoleSession;
let ha: FakeHomeAssistant;
let other: FakeHomeAssistant;

interface Form {
  id: string;
  values: Record<string, unknown>;
  status: { state: string; reason: string | null } | null;
}

async function waitUntil(check: () => Promise<boolean>, timeoutMs: number, what: string) {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const houseForm = async (): Promise<Form | undefined> => {
  const body = (await (await page.get("channels")).json()) as { forms: Form[] };
  return body.forms.find((f) => f.id === "home-assistant");
};

beforeAll(async () => {
  ha = await startFakeHomeAssistant({ token: HA_TOKEN });
  other = await startFakeHomeAssistant({ token: NEW_TOKEN });
  home = mkdtempSync(join(tmpdir(), "clawbox-ha-token-"));
  configFile = join(home, "clawbox.json");
  writeFileSync(
    configFile,
    `{
  server: { token: "${SERVER_TOKEN}" },
  memory: { enabled: false },
  log: { level: "debug" },
  homeAssistant: { url: "${ha.url}", token: "${HA_TOKEN}" },
}
`,
  );
  box = await startService(["--port", "0"], { CLAWBOX_HOME: home, CLAWBOX_CONFIG: configFile });
  page = await consoleLogin(box.url, SERVER_TOKEN);
}, 90_000);

afterAll(async () => {
  box?.child.kill("SIGTERM");
  await box?.exited;
  await ha?.close();
  await other?.close();
  if (home) rmSync(home, { recursive: true, force: true });
});

const env = () => ({ CLAWBOX_HOME: home, CLAWBOX_CONFIG: configFile });

describe("the Home Assistant token on a running box", () => {
  it("connects with it, and shows it nowhere: console, logs, config show, doctor", async () => {
    let form: Form | undefined;
    await waitUntil(
      async () => {
        form = await houseForm();
        return form?.status?.state === "connected";
      },
      20_000,
      "the Home Assistant link",
    );
    expect(form?.values).toEqual({
      url: ha.url,
      token: { set: true },
      enabled: true,
      localModelTools: 5,
    });
    expect(ha.authorizations.every((a) => a === `Bearer ${HA_TOKEN}`)).toBe(true);
    expect(ha.methods).toContain("tools/list");

    const pages = await Promise.all(
      ["channels", "status", "logs", "config"].map(async (p) => (await page.get(p)).text()),
    );
    const html = await (
      await fetch(`${box.url}/console/channels`, { headers: page.headers })
    ).text();
    const show = await runCli(["config", "show"], env());
    const doctor = await runCli(["doctor"], env());
    expect(show.code).toBe(0);
    expect(doctor.stdout).toMatch(
      /ok {4}home assistant: Home Assistant at http:\/\/127\.0\.0\.1:\d+ answered: 8 tools/,
    );
    for (const text of [
      ...pages,
      html,
      show.stdout,
      show.stderr,
      doctor.stdout,
      doctor.stderr,
      box.output(),
    ])
      expect(text).not.toContain(HA_TOKEN.slice(20, 44));
  }, 60_000);

  it("a Test or Save that moves the address without the token typed again sends nothing there and changes nothing", async () => {
    const before = readFileSync(configFile, "utf8");
    const test = await page.post("channels/home-assistant/test", { values: { url: other.url } });
    expect(await test.json()).toEqual({
      ok: false,
      message:
        "Home Assistant URL changed, so type the Long-lived access token again to test with it: the stored Long-lived access token is only sent to the saved address.",
    });
    const save = await page.post("channels/home-assistant", { values: { url: other.url } });
    expect(save.status).toBe(400);
    expect(readFileSync(configFile, "utf8")).toBe(before);
    expect(other.authorizations).toEqual([]);
  });

  it("doctor says in plain words when the token is refused, without showing it", async () => {
    ha.revoke("a-token-the-box-does-not-have");
    const doctor = await runCli(["doctor"], env());
    expect(doctor.stdout).toContain(
      "warn  home assistant: Home Assistant refused the token (HTTP 401). Create a new long-lived access token",
    );
    expect(doctor.stdout).not.toContain(HA_TOKEN.slice(20, 44));
    ha.revoke(HA_TOKEN);
  });

  it("Save with a new address and the token typed again is applied live: the link moves there", async () => {
    const save = await page.post("channels/home-assistant", {
      values: { url: other.url, token: NEW_TOKEN },
    });
    expect(save.status).toBe(200);
    expect(((await save.json()) as { applied: string[] }).applied).toContain("homeAssistant");
    await waitUntil(
      async () =>
        (await houseForm())?.status?.state === "connected" && other.methods.includes("tools/list"),
      20_000,
      "the new link",
    );
    expect(new Set(other.authorizations)).toEqual(new Set([`Bearer ${NEW_TOKEN}`]));
    expect(box.output()).not.toContain(NEW_TOKEN.slice(20, 44));
  }, 40_000);
});
