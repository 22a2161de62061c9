/**
 * Rules that span keys, which the per-key schema cannot see: the model ids named in
 * `models` exist, and a server reachable beyond loopback has a token. `config check`
 * and every command that loads the config apply them, so a config that passes the
 * check does not fail later at run time. They read a small view of the config, taken
 * from a validated config or (when other keys have errors) from the raw file with
 * defaults where a value is missing or mistyped, so one check lists every error at once.
 */
import { Cron } from "croner";
import { errorMessage, isClawboxError } from "../errors/index.ts";
import { checkSessionKey, createSessionResolver } from "../sessions/index.ts";
import { isLoopbackHost } from "./loopback-host.ts";
import type { ClawboxConfig } from "./schema.ts";
import { weakTokenReason } from "./token-strength.ts";

export interface CrossIssue {
  path: string;
  message: string;
  hint: string;
  /** Other keys whose values caused the issue (to blame an env variable that set them). */
  related?: string[];
}

/** What the cross checks read. */
export interface CrossCheckView {
  providerIds: string[];
  primary: string;
  fallbacks: string[];
  host: string;
  token: string | undefined;
  /** `server.openaiApi.enabled`: the OpenAI-compatible API needs the token too. */
  openaiApi: boolean;
  dreaming: { cron: string | undefined; timezone: string | undefined };
  agentId: string;
  mqttSessionKey: string | undefined;
}

export function viewOfConfig(config: ClawboxConfig): CrossCheckView {
  return {
    providerIds: Object.keys(config.models.providers).filter((id) =>
      Object.hasOwn(config.models.providers, id),
    ),
    primary: config.models.primary,
    fallbacks: config.models.fallbacks,
    host: config.server.host,
    token: config.server.token,
    openaiApi: config.server.openaiApi.enabled,
    dreaming: { cron: config.memory.dreaming.cron, timezone: config.memory.dreaming.timezone },
    agentId: config.agent.id,
    mqttSessionKey: config.mqtt.sessionKey,
  };
}

const objectAt = (value: unknown, key: string): Record<string, unknown> | undefined => {
  const child =
    typeof value === "object" && value !== null
      ? (value as Record<string, unknown>)[key]
      : undefined;
  return typeof child === "object" && child !== null && !Array.isArray(child)
    ? (child as Record<string, unknown>)
    : undefined;
};
const stringAt = (value: Record<string, unknown> | undefined, key: string) =>
  typeof value?.[key] === "string" ? (value[key] as string) : undefined;

/** The view of a raw config that did not validate: its values where typed right, else `defaults`. */
export function viewOfRaw(raw: unknown, defaults: CrossCheckView): CrossCheckView {
  const models = objectAt(raw, "models");
  const providers = objectAt(models, "providers");
  const server = objectAt(raw, "server");
  const dreaming = objectAt(objectAt(raw, "memory"), "dreaming");
  const fallbacks = models?.fallbacks;
  return {
    providerIds: providers ? Object.keys(providers) : defaults.providerIds,
    primary: stringAt(models, "primary") ?? defaults.primary,
    fallbacks:
      Array.isArray(fallbacks) && fallbacks.every((f) => typeof f === "string")
        ? fallbacks
        : defaults.fallbacks,
    host: stringAt(server, "host") ?? defaults.host,
    token: stringAt(server, "token") ?? defaults.token,
    openaiApi:
      typeof objectAt(server, "openaiApi")?.enabled === "boolean"
        ? objectAt(server, "openaiApi")?.enabled === true
        : defaults.openaiApi,
    dreaming: {
      cron: stringAt(dreaming, "cron") ?? defaults.dreaming.cron,
      timezone: stringAt(dreaming, "timezone") ?? defaults.dreaming.timezone,
    },
    agentId: stringAt(objectAt(raw, "agent"), "id") ?? defaults.agentId,
    mqttSessionKey: stringAt(objectAt(raw, "mqtt"), "sessionKey") ?? defaults.mqttSessionKey,
  };
}

export function crossCheckConfig(view: CrossCheckView): CrossIssue[] {
  const issues: CrossIssue[] = [];
  const ids = view.providerIds;
  const known = ids.length > 0 ? ids.map((id) => `"${id}"`).join(", ") : "none configured";
  if (!ids.includes(view.primary)) {
    issues.push({
      path: "models.primary",
      message: `"${view.primary}" is not in models.providers`,
      hint: `use one of ${known}, or add a provider with that id`,
    });
  }
  view.fallbacks.forEach((id, i) => {
    if (!ids.includes(id)) {
      issues.push({
        path: `models.fallbacks.${i}`,
        message: `"${id}" is not in models.providers`,
        hint: `use one of ${known}, or add a provider with that id`,
      });
    }
  });
  if (!isLoopbackHost(view.host) && !view.token) {
    issues.push({
      path: "server.token",
      message: `required when server.host is ${view.host}`,
      hint: "set a token (clawbox config token prints a random one), or bind to 127.0.0.1",
      related: ["server.host"],
    });
  } else if (view.openaiApi && !view.token) {
    issues.push({
      path: "server.token",
      message: "required when server.openaiApi.enabled is true (its clients authenticate with it)",
      hint: "set a token (clawbox config token prints a random one), or turn server.openaiApi.enabled off",
      related: ["server.openaiApi.enabled"],
    });
  }
  const weak = view.token === undefined ? undefined : weakTokenReason(view.token);
  if (weak) {
    issues.push({
      path: "server.token",
      message: `the token ${weak}`,
      hint: "use a random one: clawbox config token",
    });
  }
  const { cron, timezone } = view.dreaming;
  if (cron !== undefined) {
    try {
      new Cron(cron, { paused: true, ...(timezone ? { timezone } : {}) }).stop();
    } catch (error) {
      issues.push({
        path: "memory.dreaming.cron",
        message: `invalid cron expression "${cron}": ${errorMessage(error)}`,
        hint: 'use five fields, e.g. "0 3 * * *"',
      });
    }
  }
  const mqttKey = view.mqttSessionKey;
  if (mqttKey !== undefined) {
    try {
      checkSessionKey(mqttKey, view.agentId);
    } catch (error) {
      if (!isClawboxError(error, "SESSION_KEY_INVALID")) throw error;
      issues.push({
        path: "mqtt.sessionKey",
        message: error.message,
        hint: `e.g. "${createSessionResolver({ id: view.agentId, directSessionMode: "per-peer", owners: [] }).defaultSession("mqtt", false)}" (the default)`,
        related: ["agent.id"],
      });
    }
  }
  return issues;
}
