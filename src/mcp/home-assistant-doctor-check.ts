/**
 * `clawbox doctor`'s Home Assistant line: the same MCP handshake as the console's Test
 * (probe-home-assistant.ts), so doctor says in plain words whether the box can act on
 * the house and, if not, why (token refused, no MCP server, nothing answers, a
 * redirect). It shows the address, never the token.
 */
import type { HomeAssistantConfig } from "../config/index.ts";
import type { CheckResult } from "../doctor/index.ts";
import { probeHomeAssistant } from "./probe-home-assistant.ts";

export async function homeAssistantDoctorChecks(
  config: HomeAssistantConfig | undefined,
): Promise<CheckResult[]> {
  if (!config) return [];
  if (!config.enabled)
    return [
      {
        name: "home assistant",
        status: "ok",
        message: "configured but off (homeAssistant.enabled: false)",
      },
    ];
  const probe = await probeHomeAssistant(config);
  return [
    probe.ok
      ? { name: "home assistant", status: "ok", message: probe.message }
      : {
          name: "home assistant",
          status: "warn",
          message: probe.message,
          fix: "fix it on the console's Channels page (Home Assistant → Test), or in homeAssistant.url / homeAssistant.token",
        },
  ];
}
