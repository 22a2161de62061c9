/**
 * Runs dreaming on its cron schedule (croner). Opt-in: nothing is scheduled unless
 * `memory.dreaming.enabled`. A run that throws is logged, never crashes the box, and
 * overlapping runs are prevented.
 */
import { Cron } from "croner";
import type { MemoryConfig } from "../config/index.ts";
import { ClawboxError } from "../errors/index.ts";
import type { Logger } from "../system/index.ts";
import { DREAM_PRESETS, type DreamThresholds } from "./dreaming.ts";

export interface DreamPlan extends DreamThresholds {
  cron: string;
  preset: string;
  timezone: string | undefined;
}

/** Preset values with the config's explicit overrides applied. */
export function dreamPlan(config: MemoryConfig["dreaming"]): DreamPlan {
  const preset = DREAM_PRESETS[config.preset];
  return {
    preset: config.preset,
    cron: config.cron ?? preset.cron,
    minScore: config.minScore ?? preset.minScore,
    minRecallCount: config.minRecallCount ?? preset.minRecallCount,
    minUniqueQueries: config.minUniqueQueries ?? preset.minUniqueQueries,
    timezone: config.timezone,
  };
}

export interface DreamSchedule {
  nextRun(): Date | null;
  stop(): void;
}

export function scheduleDreaming(
  plan: DreamPlan,
  run: () => Promise<void>,
  logger: Logger,
): DreamSchedule {
  let job: Cron;
  try {
    job = new Cron(
      plan.cron,
      { protect: true, ...(plan.timezone ? { timezone: plan.timezone } : {}) },
      async () => {
        try {
          await run();
        } catch (error) {
          logger.error("memory dreaming failed", { error: String(error) });
        }
      },
    );
  } catch (error) {
    throw new ClawboxError(
      "CONFIG_INVALID",
      `memory.dreaming.cron: invalid cron expression "${plan.cron}"`,
      {
        hint: 'use five fields, e.g. "0 3 * * *"',
        cause: error,
      },
    );
  }
  return { nextRun: () => job.nextRun(), stop: () => job.stop() };
}
