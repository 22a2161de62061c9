/**
 * Secrets in the configuration never reach `config show` or the logs: MCP URLs with
 * `?access_token=`, custom MCP headers, MCP `env` values (a Home Assistant long-lived
 * token under any name), provider keys, the server token, and passwords written into a
 * URL (`mqtt://user:pass@broker`, `rtsp://user:pass@camera`). Token counts such as
 * `maxTokens` are numbers, not secrets, and stay visible.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { collectSecrets, createLogger } from "../../src/system/index.ts";
import { runCli } from "../support/run-cli.ts";

const SECRETS = {
  url: "hassUrlSecret123",
  header: "hdrSecretValue456",
  env: "eyJhbGciLongLivedHaToken789",
  apiKey: "sk-providerkey-000111222",
  server: "server-token-abcdef-0123456789",
  broker: "brokerPw9x",
  camera: "camPw77q",
  /** A provider's custom header: short, no digits-and-letters look of a key. */
  shortHeader: "HDRSECRET",
  /** An MCP env value that looks like a word, not a token. */
  shortEnv: "letmein",
};

const BROKER_URL = `mqtt://ha:${SECRETS.broker}@broker.lan:1883`;
const CAMERA_URL = `rtsp://viewer:${SECRETS.camera}@192.0.2.20:554/stream1`;

const config = {
  server: { token: SECRETS.server },
  mqtt: { enabled: true, url: BROKER_URL },
  models: {
    primary: "cloud",
    fallbacks: [],
    providers: {
      cloud: {
        kind: "openai",
        baseUrl: "http://127.0.0.1:9/v1",
        model: "m",
        maxTokens: 777,
        headers: { "X-Custom": SECRETS.shortHeader, "User-Agent": "clawbox-test" },
        authProfiles: [{ id: "p", apiKey: SECRETS.apiKey }],
      },
    },
  },
  tools: {
    mcp: {
      servers: {
        home: {
          transport: "http",
          url: `http://ha.local:8123/mcp?access_token=${SECRETS.url}&x=1`,
          headers: { "X-HA-Auth": SECRETS.header, accept: "application/json" },
        },
        local: {
          transport: "stdio",
          command: "ha-mcp",
          env: { HA_LLAT: SECRETS.env, HA_HOST: "ha.local", HA_PIN: SECRETS.shortEnv },
        },
      },
    },
    cameras: { porch: { url: CAMERA_URL } },
  },
};

const homes: string[] = [];
afterEach(() => {
  for (const home of homes.splice(0)) rmSync(home, { recursive: true, force: true });
});

/** `clawbox config show` on a home holding `given` as its config file. */
async function configShow(given: unknown) {
  const home = mkdtempSync(join(tmpdir(), "clawbox-secrets-"));
  homes.push(home);
  writeFileSync(join(home, "clawbox.json"), JSON.stringify(given));
  const run = await runCli(["--home", home, "config", "show"]);
  expect(run.code).toBe(0);
  return run;
}

describe("secrets", () => {
  it("config show hides every secret and keeps token counts", async () => {
    const run = await configShow(config);
    for (const secret of Object.values(SECRETS)) expect(run.stdout).not.toContain(secret);
    const shown = JSON.parse(run.stdout) as typeof config;
    expect(shown.models.providers.cloud.maxTokens).toBe(777);
    expect(shown.tools.mcp.servers.local.env.HA_HOST).toBe("[redacted]");
    expect(shown.tools.mcp.servers.home.headers.accept).toBe("application/json");
    // `ha.local` is the value of an MCP `env` entry (HA_HOST), and every value `config
    // show` hides is hidden wherever it appears, this URL included.
    expect(shown.tools.mcp.servers.home.url).toBe(
      "http://[redacted]:8123/mcp?access_token=[redacted]&x=1",
    );
    // A password inside a URL is hidden; the user name and the host stay readable.
    expect(shown.mqtt.url).toBe("mqtt://ha:[redacted]@broker.lan:1883");
    expect(shown.tools.cameras.porch.url).toBe("rtsp://viewer:[redacted]@192.0.2.20:554/stream1");
  });

  it("shows a public URL under a token-sounding key (QQ's tokenUrl), hiding only its secrets", async () => {
    const home = mkdtempSync(join(tmpdir(), "clawbox-secrets-"));
    homes.push(home);
    const qq = {
      appId: "1020",
      clientSecret: "qq-client-secret-abcdef",
      authUrl: `https://auth.example/token?client_secret=${SECRETS.server}`,
    };
    writeFileSync(join(home, "clawbox.json"), JSON.stringify({ channels: { qq } }));
    const run = await runCli(["--home", home, "config", "show"]);
    expect(run.code).toBe(0);
    const shown = JSON.parse(run.stdout) as { channels: { qq: Record<string, string> } };
    expect(shown.channels.qq.tokenUrl).toBe("https://bots.qq.com/app/getAppAccessToken");
    expect(shown.channels.qq.clientSecret).toBe("[redacted]");
    expect(run.stdout).not.toContain("qq-client-secret-abcdef");
    const lines: string[] = [];
    const logger = createLogger({ write: (l) => lines.push(l), secrets: collectSecrets({ qq }) });
    logger.info("fetching a token", { from: qq.authUrl, tokenUrl: qq.authUrl });
    expect(lines.join("\n")).not.toContain(SECRETS.server);
    expect(lines.join("\n")).toContain("https://auth.example/token?client_secret=[redacted]");
  });

  it("log lines hide every value config show hides, however short or plain", async () => {
    const run = await configShow(config);
    // Everything `config show` replaced, found by walking the file and its shown copy:
    // whole values and the parts of a value (a URL's password, an `?access_token=`).
    const hidden: string[] = [];
    const pair = (given: unknown, shown: unknown) => {
      if (typeof given === "string" && typeof shown === "string" && shown !== given) {
        const kept = shown.split("[redacted]");
        let at = 0;
        for (const [i, piece] of kept.entries()) {
          const found =
            i === kept.length - 1 ? given.length - piece.length : given.indexOf(piece, at);
          if (i > 0) hidden.push(given.slice(at, found));
          at = found + piece.length;
        }
      } else if (given && typeof given === "object" && shown && typeof shown === "object")
        for (const [key, value] of Object.entries(given))
          pair(value, (shown as Record<string, unknown>)[key]);
    };
    pair(config, JSON.parse(run.stdout));
    for (const secret of Object.values(SECRETS)) expect(hidden).toContain(secret);
    const lines: string[] = [];
    const logger = createLogger({ write: (l) => lines.push(l), secrets: collectSecrets(config) });
    for (const value of hidden) logger.warn(`run failed: upstream said hdr=${value} (HTTP 400)`);
    expect(lines).toHaveLength(hidden.length);
    for (const [i, value] of hidden.entries()) {
      expect(lines[i]).not.toContain(value);
      expect(lines[i]).toContain("[redacted]");
    }
    // A harmless header stays readable in both.
    expect(run.stdout).toContain("clawbox-test");
  });

  it("log lines hide the configuration's secrets wherever they appear", () => {
    const lines: string[] = [];
    const logger = createLogger({ write: (l) => lines.push(l), secrets: collectSecrets(config) });
    logger.error(`mcp server said: invalid token ${SECRETS.env}`, {
      url: config.tools.mcp.servers.home.url,
      detail: `header was ${SECRETS.header}`,
      headers: { "X-Custom": "anything-here-123" },
      maxTokens: 512,
      contextTokens: 4096,
      auth: `https://user:${SECRETS.server}@example.com/x`,
      elsewhere: "https://someone:notInTheConfig42@mirror.example/x",
    });
    logger.warn(`mqtt: cannot reach ${BROKER_URL} (connection refused)`);
    logger.warn("camera snapshot failed", { camera: "porch", source: CAMERA_URL });
    const line = lines.join("\n");
    for (const secret of [...Object.values(SECRETS), "anything-here-123", "notInTheConfig42"])
      expect(line).not.toContain(secret);
    expect(line).toContain("mqtt://ha:[redacted]@broker.lan:1883");
    expect(line).toContain("rtsp://viewer:[redacted]@192.0.2.20:554/stream1");
    expect(line).toContain('"maxTokens":512');
    expect(line).toContain('"contextTokens":4096');
  });
});
