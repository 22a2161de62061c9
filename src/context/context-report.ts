/**
 * The context report behind `clawbox context list|detail` and the `/context` chat
 * command: what each bootstrap file costs and where it goes, skills listed and hidden,
 * tool schema tokens, history tokens, the budget plan and the prefix hash.
 */

import type { Destination } from "./bootstrap-destination.ts";
import type { BudgetPlan } from "./budget-planner.ts";
import type { PruneReport } from "./prune-tool-results.ts";
import type { RepairReport } from "./repair-transcript.ts";

export interface FileReport {
  name: string;
  path: string;
  rawChars: number;
  injectedChars: number;
  truncated: boolean;
  destination: Destination;
  missing: boolean;
  /** Why the file could not be used (e.g. a symlink leading outside the workspace). */
  error?: string;
}

export interface ContextReport {
  sessionId: string | null;
  sessionKey: string | null;
  modelKind: "local" | "cloud";
  runKind: string;
  promptMode: string;
  model: string;
  workspace: { path: string; reachable: boolean; error?: string };
  /** pending: BOOTSTRAP.md exists; done: it was seeded and deleted; absent: never seeded. */
  bootstrapStatus: "pending" | "done" | "absent";
  files: FileReport[];
  /** The injected MEMORY.md copy (truncated per budget; the file is untouched). */
  memory: { name: string; rawChars: number; injectedChars: number; truncated: boolean } | null;
  skills: {
    mode: "full" | "compact" | "none";
    listed: { name: string; source: string; path: string }[];
    hidden: { name: string; source: string; reason: string }[];
    omitted: string[];
    tokens: number;
  };
  tools: {
    offered: number;
    included: { name: string; tokens: number }[];
    dropped: string[];
    tokens: number;
  };
  history: {
    entries: number;
    messages: number;
    tokens: number;
    fromCompaction: string | null;
    droppedForBudget: number;
    pruning: PruneReport | null;
    repair: RepairReport | null;
  };
  budget: BudgetPlan;
  prefixHash: string;
  systemPrompt: {
    chars: number;
    cacheBoundary: number;
    sections: { name: string; chars: number }[];
  };
}

const yesNo = (b: boolean): string => (b ? "yes" : "no");

export interface FormatOptions {
  /**
   * Paths relative to the workspace, and only the last two parts of one outside it
   * (`…/weather/SKILL.md`): for anyone but the owner, who has no business knowing where
   * things are on the box (the `/context` chat command from a stranger or a group).
   */
  relativePaths?: boolean;
}

/**
 * Absolute paths in a line of text (`/a/b/c`, up to a space, quote or bracket; a `;`, `:`,
 * `,` or `.` that ends it is the sentence's, not the path's).
 */
const ABSOLUTE_PATH = /(?<![\w.])\/[^\s"'()<>]*[^\s"'()<>;:,.]/g;

/** Text as shown: unchanged, or (relative) the workspace as `.`, other absolute paths as `…/dir/file`. */
function pathShower(workspace: string, relativePaths: boolean): (text: string) => string {
  if (!relativePaths) return (text) => text;
  const root = workspace.replace(/\/+$/, "");
  return (text) =>
    text.replace(ABSOLUTE_PATH, (path) => {
      if (path === root) return ".";
      if (path.startsWith(`${root}/`)) return `./${path.slice(root.length + 1)}`;
      return `…/${path.split("/").filter(Boolean).slice(-2).join("/")}`;
    });
}

/** Text form: `list` is the overview, `detail` adds sections, skills and tools. */
export function formatContextReport(
  report: ContextReport,
  view: "list" | "detail",
  options: FormatOptions = {},
): string {
  const show = pathShower(report.workspace.path, options.relativePaths ?? false);
  const b = report.budget;
  const lines = [
    `Context (${report.modelKind} model ${report.model}, ${report.runKind}, prompt ${report.promptMode})`,
    `Session: ${report.sessionKey ?? "(none)"}${report.sessionId ? ` [${report.sessionId}]` : ""}`,
    `Workspace: ${report.workspace.path}${report.workspace.reachable ? "" : ` (unreachable: ${report.workspace.error ?? "?"})`}; bootstrap ${report.bootstrapStatus}`,
    `System prompt: ${report.systemPrompt.chars} chars, boundary at ${report.systemPrompt.cacheBoundary}, prefix ${report.prefixHash}`,
    "",
    "Bootstrap files:            raw   injected  truncated  destination",
  ];
  for (const f of report.files) {
    const raw = f.error ? "refused" : f.missing ? "missing" : String(f.rawChars);
    lines.push(
      `  ${f.name.padEnd(22)} ${raw.padStart(8)} ${String(f.injectedChars).padStart(10)}  ${yesNo(f.truncated).padEnd(9)}  ${f.destination}${f.error ? `  (${f.error})` : ""}`,
    );
  }
  lines.push(
    "",
    `Skills: ${report.skills.listed.length} listed (${report.skills.mode}), ${report.skills.hidden.length} hidden, ${report.skills.tokens} tokens`,
    `Tools: ${report.tools.included.length}/${report.tools.offered} schemas, ${report.tools.tokens} tokens${report.tools.dropped.length ? `; dropped ${report.tools.dropped.join(", ")}` : ""}`,
    `History: ${report.history.messages} messages from ${report.history.entries} entries, ${report.history.tokens} tokens${report.history.fromCompaction ? `, since compaction ${report.history.fromCompaction}` : ""}`,
    `Budget (${b.exactTokens ? "exact" : "estimated"} tokens): window ${b.contextWindow}, reserve ${b.reserve}, system ${b.system}, tools ${b.toolTokens}, template ${b.templateTokens}, history ${b.historyTokens}/${b.history}`,
  );
  if (b.steps.length > 0) lines.push(`Degraded: ${b.steps.join("; ")}`);
  if (view === "detail") {
    lines.push("", "Sections:");
    for (const s of report.systemPrompt.sections)
      lines.push(`  ${s.name.padEnd(14)} ${s.chars} chars`);
    lines.push("", "Skills listed:");
    for (const s of report.skills.listed) lines.push(`  ${s.name} (${s.source}) ${s.path}`);
    for (const s of report.skills.hidden)
      lines.push(`  hidden: ${s.name} (${s.source}): ${s.reason}`);
    lines.push("", "Tool schemas:");
    for (const t of report.tools.included) lines.push(`  ${t.name.padEnd(24)} ${t.tokens} tokens`);
    const p = report.history.pruning;
    if (p)
      lines.push(
        "",
        `Pruning: ${p.reason}; soft-trimmed ${p.softTrimmed}, cleared ${p.hardCleared}, images ${p.imagesRemoved}`,
      );
    const r = report.history.repair;
    if (r)
      lines.push(
        `Repair: moved ${r.moved}, orphans ${r.droppedOrphans}, duplicates ${r.droppedDuplicates}, synthesized ${r.synthesized}`,
      );
  }
  // Every line, so no field (a hidden skill's name is its path, an error quotes one) slips by.
  return `${lines.map(show).join("\n")}\n`;
}
