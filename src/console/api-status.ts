/**
 * GET /console/api/status: the doctor checks (as `clawbox doctor` runs them, minus the
 * ones that only make sense before start), channel and MQTT state when those areas are
 * present ("not configured" otherwise), uptime, RSS and the model state.
 */
import type { Hono } from "hono";
import { loadConfig } from "../config/index.ts";
import {
  type CheckResult,
  checkConfig,
  checkDatabase,
  checkModels,
  checkWorkspace,
} from "../doctor/index.ts";
import { toClawboxError } from "../errors/index.ts";
import { memoryDoctorChecks } from "../memory/index.ts";
import { formatBytes } from "../system/index.ts";
import type { ConsoleDeps } from "./console-deps.ts";
import type { ConsoleEnv } from "./console-env.ts";

const OPTIONAL_AREAS = ["channels", "mqtt"] as const;

export function registerStatusRoutes(app: Hono<ConsoleEnv>, deps: ConsoleDeps): void {
  app.get("/console/api/status", async (c) => {
    const checks: CheckResult[] = [
      // The file as it is now: a broken edit is shown here while the running settings stay.
      checkConfig(() => loadConfig({ file: deps.configFile, env: deps.env })),
      ...checkDatabase(() => deps.store),
      ...checkWorkspace(deps.paths.workspace),
      // Header only: naming the wrapper would load llama.cpp into the service on a page view.
      ...(await checkModels(deps.config.models, deps.paths.modelsDir, { chatTemplate: "header" })),
    ];
    if (deps.memory) {
      checks.push(
        ...(await memoryDoctorChecks(deps.memory, deps.config.context.bootstrapMaxChars)),
      );
    }
    const areas: Record<string, unknown> = {};
    for (const area of OPTIONAL_AREAS) {
      const source = deps.statusSources?.[area];
      if (!source) {
        areas[area] = "not configured";
        continue;
      }
      try {
        areas[area] = (await source()) ?? "not configured";
      } catch (error) {
        areas[area] = `unavailable: ${toClawboxError(error).message}`;
      }
    }
    const rss = process.memoryUsage().rss;
    return c.json({
      version: deps.version,
      uptimeMs: Date.now() - deps.startedAt,
      rssBytes: rss,
      rss: formatBytes(rss),
      models: deps.agent.modelState(),
      primary: deps.config.models.primary,
      fallbacks: deps.config.models.fallbacks,
      checks,
      ...areas,
    });
  });
}
