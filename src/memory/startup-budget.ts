/**
 * MEMORY.md is injected into every session start, within the bootstrap budget. The
 * context engine truncates the injected copy (the file on disk is never touched); this
 * tells doctor and `/context detail` whether that happens and what to do about it.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { findMemoryFile } from "./memory-files.ts";

export interface MemoryBudgetReport {
  /** MEMORY.md or memory.md, undefined when neither exists. */
  file: string | undefined;
  rawChars: number;
  budgetChars: number;
  /** Characters of MEMORY.md that reach the model. */
  injectedChars: number;
  truncated: boolean;
  /** Share of the file that is injected, 0..1. */
  ratio: number;
  advice: string | undefined;
}

/** Whether MEMORY.md fits in `budgetChars` (e.g. context.bootstrapMaxChars). */
export function memoryStartupBudget(workspace: string, budgetChars: number): MemoryBudgetReport {
  const file = findMemoryFile(workspace);
  if (!file) {
    return {
      file,
      rawChars: 0,
      budgetChars,
      injectedChars: 0,
      truncated: false,
      ratio: 1,
      advice: undefined,
    };
  }
  const rawChars = readFileSync(join(workspace, file), "utf8").length;
  const truncated = rawChars > budgetChars;
  // Truncation keeps head 70% + tail 20% of the budget (SPEC §4); the rest is the marker.
  const injectedChars = truncated ? Math.floor(budgetChars * 0.9) : rawChars;
  const advice = truncated
    ? `${file} has ${rawChars} characters but only ${injectedChars} of them are injected at session start ` +
      `(budget ${budgetChars}: head 70% + tail 20%). Move older or detailed items into memory/YYYY-MM-DD.md ` +
      `notes (still found by memory_search), keep ${file} to durable facts, or raise context.bootstrapMaxChars.`
    : undefined;
  return {
    file,
    rawChars,
    budgetChars,
    injectedChars,
    truncated,
    ratio: rawChars === 0 ? 1 : injectedChars / rawChars,
    advice,
  };
}
