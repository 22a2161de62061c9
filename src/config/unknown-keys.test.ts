import { describe, expect, it } from "vitest";
import { validateConfig } from "./load-config.ts";

describe("unknown config keys", () => {
  it("are warned about at every depth: through defaults, records, arrays and unions", () => {
    const raw = {
      context: { compaction: { mdoe: "off" } },
      memory: { search: { mmr: { lamda: 0.5 } } },
      agent: { tools: { alow: ["read"] } },
      models: {
        primary: "cloud",
        providers: {
          cloud: {
            kind: "openai",
            baseUrl: "http://127.0.0.1:1/v1",
            model: "m",
            authProfiles: [{ id: "a", apiKey: "k", note: "x" }],
            flavour: "qwen",
          },
        },
      },
      tools: {
        byChannel: { qq: { strangers: { dney: ["exec"] } } },
        mcp: { servers: { ha: { transport: "http", url: "http://127.0.0.1:1/mcp", hedaers: {} } } },
        cameras: { door: { url: "http://127.0.0.1:1/snap", pasword: "x" } },
      },
      mqtt: { enabled: false, user: "x" },
      heartbeat: { activeHours: { start: "08:00", end: "22:00", tz: "UTC" } },
      channels: { wecom: { robot: {} } },
    };
    const { config, errors, warnings } = validateConfig(raw, "clawbox.json");
    expect(errors).toEqual([]);
    expect(config).toBeDefined();
    expect(warnings.map((w) => w.path)).toEqual([
      "context.compaction.mdoe",
      "memory.search.mmr.lamda",
      "agent.tools.alow",
      "models.providers.cloud.authProfiles.0.note",
      "models.providers.cloud.flavour",
      "tools.byChannel.qq.strangers.dney",
      "tools.mcp.servers.ha.hedaers",
      "tools.cameras.door.pasword",
      "mqtt.user",
      "heartbeat.activeHours.tz",
      "channels.wecom.robot",
    ]);
    expect(new Set(warnings.map((w) => w.message))).toEqual(new Set(["unknown key, ignored"]));
  });

  it("are not confused with inherited object properties", () => {
    const raw = JSON.parse('{"toString": 1, "server": {"constructor": 2}}');
    const { warnings } = validateConfig(raw, "clawbox.json");
    expect(warnings.map((w) => w.path)).toEqual(["toString", "server.constructor"]);
  });
});
