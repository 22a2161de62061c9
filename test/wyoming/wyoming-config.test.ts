/**
 * The `wyoming` config section: its key names and defaults are a contract, and a
 * server reachable beyond loopback must name its peers (Wyoming has no authentication).
 */
import { describe, expect, it } from "vitest";
import { formatIssue, validateConfig } from "../../src/config/index.ts";

const check = (wyoming: unknown) => validateConfig({ wyoming }, "clawbox.json");

describe("the wyoming config section", () => {
  it("is off on loopback port 10700 by default, with the documented voice tools", () => {
    const { config } = validateConfig({}, "clawbox.json");
    expect(config?.wyoming).toEqual({
      enabled: false,
      host: "127.0.0.1",
      port: 10700,
      tools: ["memory_search", "camera_snapshot", "mcp__homeassistant__*"],
    });
  });

  it("refuses a host beyond loopback without allowFrom, naming the key and why", () => {
    const out = check({ enabled: true, host: "0.0.0.0" }).errors.map(formatIssue);
    expect(out).toHaveLength(1);
    expect(out[0]).toContain(
      "clawbox.json: wyoming.allowFrom: needed when wyoming.host is not loopback",
    );
    expect(out[0]).toContain("no authentication");
    expect(check({ enabled: true, host: "0.0.0.0", allowFrom: [] }).errors).toHaveLength(1);
    expect(check({ enabled: true, host: "0.0.0.0", allowFrom: ["192.168.1.0/24"] }).errors).toEqual(
      [],
    );
    expect(check({ host: "::1" }).errors).toEqual([]);
  });

  it("accepts addresses and CIDR blocks in allowFrom and refuses anything else", () => {
    expect(
      check({ host: "0.0.0.0", allowFrom: ["192.168.1.20", "10.0.0.0/8", "fd00::/8", "::1"] })
        .errors,
    ).toEqual([]);
    for (const bad of ["homeassistant.local", "192.168.1.0/33", "10.0.0.0/8/1", "", "1.2.3"]) {
      const out = check({ host: "0.0.0.0", allowFrom: [bad] }).errors.map(formatIssue);
      expect(out.join("\n"), bad).toContain(
        "wyoming.allowFrom.0: must be an IP address or a CIDR block",
      );
    }
  });

  it("refuses a port outside 1-65535 and unknown keys are warned about", () => {
    expect(check({ port: 70000 }).errors.map(formatIssue)).toEqual([
      "clawbox.json: wyoming.port: must be at most 65535",
    ]);
    expect(check({ zeroconfig: true }).warnings.map((w) => w.path)).toEqual(["wyoming.zeroconfig"]);
  });
});
