/**
 * The degradation ladder of the budget planner (SPEC §5): when the system prompt and
 * tool schemas leave history less than its floor, cut step by step — tighter bootstrap
 * (down to a minimum), no skills list, fewer tool schemas (at least one), optional
 * sections dropped, a minimal prompt, no project files, the identity line alone — re-measuring after each
 * step and stopping as soon as it fits. The inputs are the window and the fixed parts
 * only (never history or the per-turn message), so a given window and workspace always
 * land on the same step and the prompt prefix stays byte-identical across turns.
 */
import type { ListedSkill, PromptMode } from "../prompt/index.ts";
import type { InjectedFile } from "../workspace/index.ts";
import { bootstrapCharsFor, fitTools } from "./budget-planner.ts";

/** The shape of the prompt the ladder works on; each step changes one part. */
export interface PromptShape {
  mode: PromptMode;
  omit: string[];
  listed: ListedSkill[];
  skillsMode: "full" | "compact" | "none";
  skillsBlock: string;
  skillsTokens: number;
  toolCount: number;
  totalChars: number;
  limited: InjectedFile[];
  bootstrapTokens: number;
}

export interface LadderOps {
  /** Fixed tokens (system prefix + tools + template frame) of a shape. */
  measure(shape: PromptShape): Promise<number>;
  /** Re-limits the project files to `totalChars` and measures them. */
  limit(totalChars: number): Promise<{ limited: InjectedFile[]; tokens: number }>;
  toolTokens: readonly number[];
  offeredTools: number;
  /** Fixed tokens may not exceed this (window − reserve − history floor). */
  target: number;
}

/** Sections a full prompt can live without on a small window. */
export const OPTIONAL_SECTIONS = ["documentation", "messaging", "heartbeats"] as const;
/** Project files are not tightened below this many chars before other parts are cut. */
export const BOOTSTRAP_MIN_CHARS = 600;

type Step = (shape: PromptShape, deficit: number) => Promise<string | undefined>;

/** Runs the ladder on `shape` (mutated); returns the steps taken, in order. */
export async function degradePrompt(shape: PromptShape, ops: LadderOps): Promise<string[]> {
  const steps: string[] = [];
  const sumChars = () => shape.limited.reduce((a, f) => a + f.injectedChars, 0);
  const toolSum = () => ops.toolTokens.slice(0, shape.toolCount).reduce((a, b) => a + b, 0);
  const dropSkills = (s: PromptShape) => {
    s.listed = [];
    s.skillsBlock = "";
    s.skillsMode = "none";
    s.skillsTokens = 0;
  };
  const ladder: Step[] = [
    async (s, deficit) => {
      const chars = sumChars();
      if (s.bootstrapTokens === 0 || chars <= BOOTSTRAP_MIN_CHARS) return undefined;
      const wanted = bootstrapCharsFor(
        Math.max(0, s.bootstrapTokens - deficit),
        chars,
        s.bootstrapTokens,
      );
      s.totalChars = Math.max(BOOTSTRAP_MIN_CHARS, wanted);
      const out = await ops.limit(s.totalChars);
      s.limited = out.limited;
      s.bootstrapTokens = out.tokens;
      return `bootstrap tightened to ${s.totalChars} chars for history`;
    },
    async (s) => {
      if (!s.skillsBlock) return undefined;
      dropSkills(s);
      return "skills list dropped";
    },
    async (s, deficit) => {
      // Fewer, not none: the first (highest-priority) tool goes only with the last step.
      if (s.toolCount <= 1) return undefined;
      s.toolCount = Math.max(1, fitTools(ops.toolTokens, Math.max(0, toolSum() - deficit)));
      return `tool schemas cut to ${s.toolCount} of ${ops.offeredTools} for history`;
    },
    async (s) => {
      if (s.mode !== "full") return undefined;
      s.omit = [...new Set([...s.omit, ...OPTIONAL_SECTIONS])];
      return `optional sections dropped (${OPTIONAL_SECTIONS.join(", ")})`;
    },
    async (s) => {
      if (s.mode !== "full") return undefined;
      s.mode = "minimal";
      s.omit = [...new Set([...s.omit, "documentation"])];
      dropSkills(s);
      return "minimal prompt";
    },
    async (s) => {
      if (s.bootstrapTokens === 0) return undefined;
      s.totalChars = 0;
      const out = await ops.limit(0);
      s.limited = out.limited;
      s.bootstrapTokens = 0;
      s.omit = [...new Set([...s.omit, "project"])];
      return "project files dropped";
    },
    async (s) => {
      if (s.mode === "none" && s.toolCount === 0) return undefined;
      s.mode = "none";
      s.toolCount = 0;
      dropSkills(s);
      return "identity line only, no tools";
    },
  ];
  let fixed = await ops.measure(shape);
  for (const step of ladder) {
    if (fixed <= ops.target) break;
    const taken = await step(shape, fixed - ops.target);
    if (!taken) continue;
    steps.push(taken);
    fixed = await ops.measure(shape);
  }
  return steps;
}
