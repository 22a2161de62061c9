/**
 * The Models page's chain save against a real `clawbox run`: when the config file on disk
 * no longer loads as a whole (a key broken by hand over SSH after the service started),
 * the save is refused before anything is written, naming the broken key, instead of
 * writing `models.primary` and `models.fallbacks` and then failing on the other key (a
 * partial write reported as a failure, found by a first-time user).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ConsoleSession, consoleLogin } from "../support/console-session.ts";
import { type RunningService, startService } from "../support/run-service.ts";

const TOKEN = "model-chain-token-0123456789";
let home: string;
let configFile: string;
let box: RunningService;
let session: ConsoleSession;

const config = (extra: string) => `// the box
{
  server: { token: "${TOKEN}" },
  memory: { enabled: false },
  models: {
    primary: "one",
    providers: {
      one: { kind: "openai", baseUrl: "http://127.0.0.1:9/v1", model: "a" },
      two: { kind: "openai", baseUrl: "http://127.0.0.1:9/v1", model: "b" },
    },
  },${extra}
}
`;

beforeAll(async () => {
  home = mkdtempSync(join(tmpdir(), "clawbox-model-chain-"));
  configFile = join(home, "clawbox.json");
  writeFileSync(configFile, config(""));
  box = await startService(["--port", "0"], { CLAWBOX_HOME: home, CLAWBOX_CONFIG: "" });
  session = await consoleLogin(box.url, TOKEN);
}, 90_000);

afterAll(async () => {
  box?.child.kill("SIGTERM");
  await box?.exited;
  if (home) rmSync(home, { recursive: true, force: true });
});

describe("the Models page's chain save", () => {
  it("writes nothing when the file would not load as a whole, and names the broken key", async () => {
    const broken = config(`\n  agent: { directSessionMode: "sometimes" },`);
    writeFileSync(configFile, broken);
    const res = await session.post("models/chain", { primary: "two", fallbacks: ["one"] });
    expect(res.status).toBe(400);
    const answer = (await res.json()) as { error?: { message?: string } };
    expect(JSON.stringify(answer)).toContain("directSessionMode");
    expect(readFileSync(configFile, "utf8")).toBe(broken);
  });

  it("saves the chain once the file loads again", async () => {
    writeFileSync(configFile, config(""));
    const res = await session.post("models/chain", { primary: "two", fallbacks: ["one"] });
    expect(res.status).toBe(200);
    expect(readFileSync(configFile, "utf8")).toContain('primary: "two"');
  });
});
