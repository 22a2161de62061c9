/**
 * Environment variables that override config keys, for systemd units and quick tests.
 * Each one maps to one key path; values are parsed to the type the schema expects.
 */
export interface EnvOverride {
  variable: string;
  path: string[];
  parse: (value: string) => unknown;
}

const asNumber = (value: string): unknown => {
  const n = Number(value);
  return Number.isFinite(n) && value.trim() !== "" ? n : value;
};

export const ENV_OVERRIDES: readonly EnvOverride[] = [
  { variable: "CLAWBOX_WORKSPACE", path: ["workspace"], parse: (v) => v },
  { variable: "CLAWBOX_HOST", path: ["server", "host"], parse: (v) => v },
  { variable: "CLAWBOX_PORT", path: ["server", "port"], parse: asNumber },
  { variable: "CLAWBOX_TOKEN", path: ["server", "token"], parse: (v) => v },
  {
    variable: "CLAWBOX_MODEL_PATH",
    path: ["models", "providers", "local", "path"],
    parse: (v) => v,
  },
  {
    variable: "CLAWBOX_THREADS",
    path: ["models", "providers", "local", "threads"],
    parse: asNumber,
  },
  { variable: "CLAWBOX_LOG_LEVEL", path: ["log", "level"], parse: (v) => v },
];

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * Writes the overrides present in `env` into `raw` (a parsed, not yet validated config)
 * and returns the names of the variables applied.
 */
export function applyEnvOverrides(
  raw: Record<string, unknown>,
  env: Record<string, string | undefined>,
): string[] {
  const applied: string[] = [];
  for (const override of ENV_OVERRIDES) {
    const value = env[override.variable];
    if (value === undefined || value === "") continue;
    let node: Record<string, unknown> = raw;
    const keys = override.path;
    for (let i = 0; i < keys.length - 1; i++) {
      const key = keys[i] as string;
      const next = node[key];
      if (!isPlainObject(next)) {
        const created: Record<string, unknown> = {};
        // A local provider created by CLAWBOX_MODEL_PATH needs its discriminator.
        if (key === "local" && keys[i - 1] === "providers") created.kind = "local";
        node[key] = created;
        node = created;
      } else {
        node = next;
      }
    }
    node[keys[keys.length - 1] as string] = override.parse(value);
    applied.push(override.variable);
  }
  return applied;
}
