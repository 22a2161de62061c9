/**
 * The first-run ritual's record in the workspace state: BOOTSTRAP.md seeded and now gone
 * from the disk means the ritual is done, recorded once with its time. The engine records
 * it only for an interactive turn (a scheduled run is not the owner's ritual), and a
 * completion recorded while the file is still there (an older clawbox counted a
 * reminder's turn) is taken back, so the state and the file agree. A failed write is
 * logged, never thrown: the turn goes on.
 */
import type { Logger } from "../system/index.ts";
import {
  readWorkspaceState,
  type WorkspaceState,
  writeWorkspaceState,
} from "../workspace/index.ts";

export interface RitualCheck {
  workspace: string;
  /** The workspace could be read for this turn (else nothing is recorded). */
  reachable: boolean;
  /** BOOTSTRAP.md is on the disk now. */
  present: boolean;
  logger?: Logger | undefined;
}

/** Brings the recorded state of the ritual in line with BOOTSTRAP.md on the disk. */
export function noteRitual({ workspace, reachable, present, logger }: RitualCheck): void {
  if (!reachable) return;
  const state = readWorkspaceState(workspace);
  if (present) {
    if (state.bootstrapCompletedAt) forgetRitual(workspace, state, logger);
    return;
  }
  if (!state.bootstrapSeededAt || state.bootstrapCompletedAt) return;
  try {
    writeWorkspaceState(workspace, {
      ...state,
      bootstrapCompletedAt: new Date().toISOString(),
    });
    logger?.info("first-run ritual finished (BOOTSTRAP.md deleted)");
  } catch (error) {
    logger?.warn("cannot record the finished first-run ritual", {
      error: String(error),
    });
  }
}

function forgetRitual(workspace: string, state: WorkspaceState, logger?: Logger): void {
  const { bootstrapCompletedAt: _, ...rest } = state;
  try {
    writeWorkspaceState(workspace, rest);
    logger?.info("BOOTSTRAP.md is present: the first-run ritual is pending again");
  } catch (error) {
    logger?.warn("cannot record the pending first-run ritual", {
      error: String(error),
    });
  }
}
