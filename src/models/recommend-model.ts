/**
 * Which chat model suits this board: the most capable manifest model whose minimum RAM
 * fits the board's total RAM and whose file (plus a margin) fits the free disk. Used by
 * `doctor`, `models list`, the console and the missing-model error, so they all agree.
 */
import { mkdirSync, statfsSync } from "node:fs";
import { totalmem } from "node:os";
import { formatBytes } from "../system/index.ts";
import type { ChatManifestModel, Manifest } from "./manifest.ts";
import { pullCommandFor } from "./pull-command.ts";

/** Disk kept free beside a model file (logs, database, the .part while downloading). */
export const DISK_MARGIN_MB = 256;

export interface BoardResources {
  totalRamMb: number;
  /** Free disk where models are stored; undefined when it cannot be measured. */
  freeDiskMb: number | undefined;
}

export interface ChatRecommendation {
  /** The model to pull, or undefined when none fits. */
  model: ChatManifestModel | undefined;
  /** One sentence saying why (RAM in MB as `minRamMb`, file and disk sizes by formatBytes). */
  reason: string;
  /** The exact command, when there is a model. */
  command: string | undefined;
}

export function boardResources(modelsDir: string): BoardResources {
  let freeDiskMb: number | undefined;
  try {
    mkdirSync(modelsDir, { recursive: true });
    const fs = statfsSync(modelsDir);
    freeDiskMb = Math.floor((fs.bavail * fs.bsize) / 1048576);
  } catch {
    freeDiskMb = undefined;
  }
  return { totalRamMb: Math.floor(totalmem() / 1048576), freeDiskMb };
}

const fileBytes = (m: ChatManifestModel): number => m.files[0]?.size ?? 0;
const fileMb = (m: ChatManifestModel): number => Math.ceil(fileBytes(m) / 1048576);

export function chatModels(manifest: Manifest): ChatManifestModel[] {
  return manifest.models.filter((m): m is ChatManifestModel => m.kind === "chat");
}

export function recommendChatModel(manifest: Manifest, board: BoardResources): ChatRecommendation {
  const models = chatModels(manifest);
  if (models.length === 0)
    return { model: undefined, reason: "the manifest lists no chat models", command: undefined };
  const diskOk = (m: ChatManifestModel) =>
    board.freeDiskMb === undefined || fileMb(m) + DISK_MARGIN_MB <= board.freeDiskMb;
  const fitting = models.filter((m) => m.minRamMb <= board.totalRamMb && diskOk(m));
  const disk = board.freeDiskMb === undefined ? "unknown" : formatBytes(board.freeDiskMb * 1048576);
  if (fitting.length === 0) {
    const smallest = [...models].sort((a, b) => a.minRamMb - b.minRamMb)[0];
    return {
      model: undefined,
      reason: `no chat model fits ${board.totalRamMb} MB RAM and ${disk} free disk (the smallest, ${smallest?.name}, needs ${smallest?.minRamMb} MB RAM and ${smallest ? formatBytes(fileBytes(smallest) + DISK_MARGIN_MB * 1048576) : "?"} disk)`,
      command: undefined,
    };
  }
  // Most capable first: the largest RAM requirement that still fits; manifest order breaks ties.
  const best = fitting.reduce((a, b) => (b.minRamMb > a.minRamMb ? b : a));
  return {
    model: best,
    reason: `${best.name} (${best.quantization}, ${formatBytes(fileBytes(best))}) fits ${board.totalRamMb} MB RAM and ${disk} free disk`,
    command: pullCommandFor(best),
  };
}
