/**
 * Only the `server` section of a config file that may be invalid elsewhere: what
 * `clawbox console url` needs (the port and the address), so a typo in, say,
 * `channels.qq` does not stop the owner from logging in to the console to fix it.
 * Environment overrides apply as in `loadConfig`. Throws CONFIG_UNREADABLE when the file
 * is not JSON5, and CONFIG_INVALID naming the key when the server section itself is wrong.
 */
import { existsSync, readFileSync } from "node:fs";
import JSON5 from "json5";
import { ClawboxError } from "../errors/index.ts";
import { applyEnvOverrides } from "./env-overrides.ts";
import { formatIssue } from "./load-config.ts";
import { type ServerConfig, serverSection } from "./sections/server.ts";

export function loadServerSection(
  file: string,
  env: Record<string, string | undefined>,
): ServerConfig {
  let raw: unknown = {};
  try {
    const text = existsSync(file) ? readFileSync(file, "utf8") : "";
    if (text.trim() !== "") raw = JSON5.parse(text);
  } catch (error) {
    throw new ClawboxError("CONFIG_UNREADABLE", `${file}: not readable as JSON5`, {
      hint: "fix the file (clawbox config check shows where), or pass --port",
      cause: error,
    });
  }
  const object = (
    typeof raw === "object" && raw !== null && !Array.isArray(raw) ? raw : {}
  ) as Record<string, unknown>;
  applyEnvOverrides(object, env);
  const parsed = serverSection.safeParse(object.server);
  if (parsed.success) return parsed.data;
  const issues = parsed.error.issues.map((i) =>
    formatIssue({ file, path: ["server", ...i.path.map(String)].join("."), message: i.message }),
  );
  throw new ClawboxError("CONFIG_INVALID", issues.join("; "), { hint: "fix it, or pass --port" });
}
