/**
 * `<workspace>/.clawbox/workspace-state.json`: when the workspace was seeded and when
 * the first-run ritual finished. Without it, seeding again after the owner finished the
 * ritual would bring BOOTSTRAP.md back.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "../schema/index.ts";
import { writeFileAtomic } from "../system/index.ts";

const stateSchema = z.looseObject({
  version: z._default(z.literal(1), 1),
  seededAt: z.optional(z.string()),
  bootstrapSeededAt: z.optional(z.string()),
  bootstrapCompletedAt: z.optional(z.string()),
});

export type WorkspaceState = z.infer<typeof stateSchema>;

export function workspaceStatePath(workspace: string): string {
  return join(workspace, ".clawbox", "workspace-state.json");
}

/** The state, or an empty one when the file is absent or unreadable (never throws). */
export function readWorkspaceState(workspace: string): WorkspaceState {
  try {
    const parsed = stateSchema.safeParse(
      JSON.parse(readFileSync(workspaceStatePath(workspace), "utf8")),
    );
    return parsed.success ? parsed.data : { version: 1 };
  } catch {
    return { version: 1 };
  }
}

/** Written durably (temp file, fsync, rename): a power cut leaves the old or the new state. */
export function writeWorkspaceState(workspace: string, state: WorkspaceState): void {
  writeFileAtomic(workspaceStatePath(workspace), `${JSON.stringify(state, null, 2)}\n`);
}
