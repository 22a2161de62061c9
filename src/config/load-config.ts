/**
 * Reads `<home>/clawbox.json` (JSON5 accepted), applies environment overrides and
 * validates it. A missing file means "all defaults": the box must start with nothing
 * configured. Every problem is reported as `file: key.path: what is wrong (what to do)`.
 */
import { existsSync, readFileSync } from "node:fs";
import JSON5 from "json5";
import { ClawboxError } from "../errors/index.ts";
import type { z } from "../schema/index.ts";
import { nearestWord } from "../system/index.ts";
import { crossCheckConfig, viewOfConfig, viewOfRaw } from "./cross-checks.ts";
import { applyEnvOverrides, ENV_OVERRIDES } from "./env-overrides.ts";
import { type ClawboxConfig, configSchema } from "./schema.ts";
import { findUnknownKeys } from "./unknown-keys.ts";

export interface ConfigIssue {
  file: string;
  path: string;
  message: string;
  hint?: string;
}

export interface LoadedConfig {
  config: ClawboxConfig;
  /** Path of the file read, or that would be read when absent. */
  file: string;
  fileExists: boolean;
  warnings: ConfigIssue[];
  envApplied: string[];
}

export function formatIssue(issue: ConfigIssue): string {
  const where = issue.path ? `${issue.file}: ${issue.path}` : issue.file;
  return `${where}: ${issue.message}${issue.hint ? ` (${issue.hint})` : ""}`;
}

/**
 * What to do, when the message (plain words from src/schema) does not already say it:
 * "must be a number" needs no "(set it to a number)" after it.
 */
function hintFor(issue: z.core.$ZodIssue): string | undefined {
  switch (issue.code) {
    case "invalid_union":
      return "check the allowed shapes in the README's configuration section";
    case "custom":
      return "see the README's configuration section";
    default:
      return undefined;
  }
}

/** Validates an already-parsed config object. Pure: no file or env access. */
export function validateConfig(
  raw: unknown,
  file: string,
): { config?: ClawboxConfig; errors: ConfigIssue[]; warnings: ConfigIssue[] } {
  const warnings = findUnknownKeys(configSchema, raw).map(({ path, known }) => {
    const meant = nearestWord(path.split(".").at(-1) ?? path, known);
    return {
      file,
      path,
      message: "unknown key, ignored",
      hint: meant ? `did you mean \`${meant}\`?` : "remove it or check its spelling",
    };
  });
  const result = configSchema.safeParse(raw);
  if (result.success) return { config: result.data, errors: [], warnings };
  const errors = result.error.issues.map((issue): ConfigIssue => {
    const hint = hintFor(issue);
    return {
      file,
      path: issue.path.map(String).join("."),
      message: issue.message,
      ...(hint ? { hint } : {}),
    };
  });
  return { errors, warnings };
}

export interface LoadConfigOptions {
  file: string;
  env?: Record<string, string | undefined>;
  /** The file was named explicitly (CLAWBOX_CONFIG): its absence is an error, not "defaults". */
  required?: boolean;
}

/**
 * Points an issue at what set the value: an environment variable when one of
 * `paths` was overridden from the environment, else the config file.
 */
function blame(
  issue: ConfigIssue,
  paths: string[],
  envApplied: string[],
  env: Record<string, string | undefined>,
): ConfigIssue {
  const override = ENV_OVERRIDES.find(
    (o) =>
      envApplied.includes(o.variable) &&
      paths.some((p) => p === o.path.join(".") || p.startsWith(`${o.path.join(".")}.`)),
  );
  if (!override) return issue;
  const shown = override.variable === "CLAWBOX_TOKEN" ? "(set)" : env[override.variable];
  return { ...issue, file: `environment ${override.variable}=${shown}` };
}

/**
 * Loads and validates the config. Throws CONFIG_UNREADABLE when the file cannot be
 * read or parsed, CONFIG_INVALID (with `details.issues`) when it does not validate.
 */
export function loadConfig(options: LoadConfigOptions): LoadedConfig {
  const { file } = options;
  const env = options.env ?? process.env;
  const fileExists = existsSync(file);
  if (!fileExists && options.required) {
    throw new ClawboxError("CONFIG_UNREADABLE", `${file}: no such config file`, {
      hint: "fix CLAWBOX_CONFIG or create the file; unset CLAWBOX_CONFIG to use <home>/clawbox.json",
    });
  }
  let text = "";
  if (fileExists) {
    try {
      text = readFileSync(file, "utf8");
    } catch (error) {
      throw new ClawboxError("CONFIG_UNREADABLE", `${file}: cannot read the file`, {
        hint: "check its permissions",
        cause: error,
      });
    }
  }
  return { ...parseConfigText(text, file, env), file, fileExists };
}

/**
 * Parses and validates the text of a config file as `loadConfig` does (environment
 * overrides, schema, cross-key rules). Also used to check an edit before it is written.
 * Throws CONFIG_UNREADABLE (not JSON5) or CONFIG_INVALID (with `details.issues`).
 */
export function parseConfigText(
  text: string,
  file: string,
  env: Record<string, string | undefined>,
): Pick<LoadedConfig, "config" | "warnings" | "envApplied"> {
  let raw: unknown = {};
  if (text.trim() !== "") {
    try {
      raw = JSON5.parse(text);
    } catch (error) {
      const detail = error instanceof Error ? error.message.replace(/^JSON5: /, "") : "";
      throw new ClawboxError("CONFIG_UNREADABLE", `${file}: not valid JSON5: ${detail}`, {
        hint: "fix the syntax at the position shown",
        cause: error,
      });
    }
    if (typeof raw !== "object" || raw === null || Array.isArray(raw)) {
      const issue = { file, path: "", message: "the file must hold one JSON object" };
      throw new ClawboxError("CONFIG_INVALID", formatIssue(issue), {
        details: { issues: [issue] },
      });
    }
  }
  const rawObject = raw as Record<string, unknown>;
  const envApplied = applyEnvOverrides(rawObject, env);
  const validated = validateConfig(rawObject, file);
  const { config, warnings } = validated;
  const typeErrors = validated.errors.map((e) => blame(e, [e.path], envApplied, env));
  // The cross-key rules run even when some keys are mistyped (on the values that are
  // right, defaults elsewhere), so one check lists every error; a key already reported
  // is not reported twice.
  const view = config ? viewOfConfig(config) : viewOfRaw(rawObject, viewOfConfig(defaultConfig()));
  const crossErrors = crossCheckConfig(view)
    .filter((c) => !typeErrors.some((e) => e.path === c.path || e.path.startsWith(`${c.path}.`)))
    .map((c) =>
      blame(
        { file, path: c.path, message: c.message, hint: c.hint },
        [c.path, ...(c.related ?? [])],
        envApplied,
        env,
      ),
    );
  const errors = [...typeErrors, ...crossErrors];
  if (!config || errors.length > 0) {
    throw new ClawboxError("CONFIG_INVALID", errors.map(formatIssue).join("\n"), {
      details: { issues: errors, warnings },
    });
  }
  return { config, warnings, envApplied };
}

/** The configuration with nothing set: what `npm start` runs with on a fresh machine. */
export function defaultConfig(): ClawboxConfig {
  return configSchema.parse({});
}
