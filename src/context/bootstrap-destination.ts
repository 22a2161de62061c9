/**
 * Where each bootstrap file goes (SPEC §4). BOOTSTRAP.md, the first-run ritual, is
 * never placed in a local model's privileged system prompt: on the first interactive
 * run of a session its content leads the user message under a "bootstrap pending" note,
 * later runs exclude it. For cloud models it is a normal project-context file. Other
 * files go to the system prompt when present.
 */
import type { BootstrapFileName } from "../workspace/index.ts";
import type { ModelKind, RunKind } from "./run-kinds.ts";

export type Destination = "system" | "user" | "excluded";

export interface DestinationInput {
  name: BootstrapFileName;
  present: boolean;
  modelKind: ModelKind;
  runKind: RunKind;
  /** No message of this session was seen by a model yet. */
  firstRun: boolean;
  /** Only headings and comments (the default HEARTBEAT.md): not worth any tokens. */
  effectivelyEmpty?: boolean;
}

export function bootstrapDestination(input: DestinationInput): Destination {
  if (!input.present) return "excluded";
  if (input.name === "HEARTBEAT.md" && input.effectivelyEmpty) return "excluded";
  if (input.name !== "BOOTSTRAP.md") return "system";
  if (input.runKind !== "interactive") return "excluded";
  if (input.modelKind === "cloud") return "system";
  return input.firstRun ? "user" : "excluded";
}

export const BOOTSTRAP_PENDING_NOTE =
  "[bootstrap pending] This is your first conversation on this box. The workspace file BOOTSTRAP.md below describes a first-run ritual; follow it with the owner, then delete BOOTSTRAP.md.";

export const WORKSPACE_UNREACHABLE_NOTE =
  "[bootstrap pending] The workspace is not reachable right now, so the first-run setup cannot start. Greet the owner briefly, do not invent facts about them, and suggest checking the box's storage.";

export function bootstrapUserBlock(text: string): string {
  return `${BOOTSTRAP_PENDING_NOTE}\n\n<BOOTSTRAP.md>\n${text}\n</BOOTSTRAP.md>`;
}
