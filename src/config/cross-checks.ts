/**
 * Rules that span keys, which the per-key schema cannot see: the model ids named in
 * `models` exist, and a server reachable beyond loopback has a token. `config check`
 * and every command that loads the config apply them, so a config that passes the
 * check does not fail later at run time.
 */
import { Cron } from "croner";
import type { ClawboxConfig } from "./schema.ts";

export interface CrossIssue {
  path: string;
  message: string;
  hint: string;
  /** Other keys whose values caused the issue (to blame an env variable that set them). */
  related?: string[];
}

const LOOPBACK = new Set(["127.0.0.1", "::1", "localhost", "[::1]"]);

/** True for the addresses only this machine can reach. */
export function isLoopbackHost(host: string): boolean {
  return LOOPBACK.has(host) || /^127\.\d+\.\d+\.\d+$/.test(host);
}

export function crossCheckConfig(config: ClawboxConfig): CrossIssue[] {
  const issues: CrossIssue[] = [];
  const ids = Object.keys(config.models.providers).filter((id) =>
    Object.hasOwn(config.models.providers, id),
  );
  const known = ids.length > 0 ? ids.map((id) => `"${id}"`).join(", ") : "none configured";
  if (!ids.includes(config.models.primary)) {
    issues.push({
      path: "models.primary",
      message: `"${config.models.primary}" is not in models.providers`,
      hint: `use one of ${known}, or add a provider with that id`,
    });
  }
  config.models.fallbacks.forEach((id, i) => {
    if (!ids.includes(id)) {
      issues.push({
        path: `models.fallbacks.${i}`,
        message: `"${id}" is not in models.providers`,
        hint: `use one of ${known}, or add a provider with that id`,
      });
    }
  });
  if (!isLoopbackHost(config.server.host) && !config.server.token) {
    issues.push({
      path: "server.token",
      message: `required when server.host is ${config.server.host}`,
      hint: "set a token of at least 16 characters, or bind to 127.0.0.1",
      related: ["server.host"],
    });
  }
  const { cron, timezone } = config.memory.dreaming;
  if (cron !== undefined) {
    try {
      new Cron(cron, { paused: true, ...(timezone ? { timezone } : {}) }).stop();
    } catch (error) {
      issues.push({
        path: "memory.dreaming.cron",
        message: `invalid cron expression "${cron}": ${error instanceof Error ? error.message : String(error)}`,
        hint: 'use five fields, e.g. "0 3 * * *"',
      });
    }
  }
  return issues;
}
