/**
 * The Logs page: the service's recent log lines from the in-memory ring (what
 * `journalctl -u clawbox` shows for the last minutes), newest last, at or above a level.
 * Lines were redacted when logged; they are redacted again here with the secrets of the
 * config as it is now, so a secret set from the console after a line was written is
 * hidden too.
 */
import type { Hono } from "hono";
import { collectSecrets, type LogLevel, redact } from "../system/index.ts";
import type { ConsoleDeps } from "./console-deps.ts";
import type { ConsoleEnv } from "./console-env.ts";

const LEVELS: readonly LogLevel[] = ["debug", "info", "warn", "error"];

export function registerLogRoutes(app: Hono<ConsoleEnv>, deps: ConsoleDeps): void {
  app.get("/console/api/logs", (c) => {
    const asked = c.req.query("level");
    const level = LEVELS.find((l) => l === asked) ?? "info";
    const secrets = collectSecrets(deps.config);
    const lines = (deps.logs?.entries(level, 500) ?? []).map((e) => ({
      at: e.at,
      level: e.level,
      line: String(redact(e.line, secrets)),
    }));
    return c.json({ level, lines, kept: deps.logs?.maxLines ?? 0 });
  });
}
