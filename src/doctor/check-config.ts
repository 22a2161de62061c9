/** The config file parses and validates; unknown keys are warnings. */
import { type ConfigIssue, formatIssue, type LoadedConfig } from "../config/index.ts";
import { isClawboxError } from "../errors/index.ts";
import type { CheckResult } from "./doctor-check.ts";

export function checkConfig(load: () => LoadedConfig): CheckResult {
  try {
    const loaded = load();
    if (loaded.warnings.length > 0) {
      return {
        name: "config",
        status: "warn",
        message: loaded.warnings.map(formatIssue).join("; "),
        fix: "remove or correct the keys listed",
      };
    }
    return {
      name: "config",
      status: "ok",
      message: loaded.fileExists ? loaded.file : `${loaded.file} absent, using defaults`,
    };
  } catch (error) {
    const issues =
      (isClawboxError(error) ? (error.details?.issues as ConfigIssue[] | undefined) : undefined) ??
      [];
    return {
      name: "config",
      status: "fail",
      message:
        issues.length > 0
          ? issues.map(formatIssue).join("; ")
          : error instanceof Error
            ? error.message
            : String(error),
      fix: 'run "clawbox config check" and correct each key listed',
    };
  }
}
