/**
 * Where skills come from, lowest precedence first (a later folder's skill of the same
 * name wins): configured extra folders, the bundled ones beside the binary, the managed
 * ones under the home, the user's personal `~/.agents/skills`, then the workspace's
 * `.agents/skills` and `skills/`.
 */
import { homedir } from "node:os";
import { join, resolve } from "node:path";
import type { ContextConfig } from "../config/index.ts";
import { type HomePaths, runtimeLayout } from "../system/index.ts";
import type { SkillDir } from "../workspace/index.ts";

export function skillDirsFor(skills: ContextConfig["skills"], paths: HomePaths): SkillDir[] {
  const workspace = paths.workspace;
  return [
    ...skills.extraDirs.map((dir) => ({ source: "extra" as const, dir: resolve(paths.home, dir) })),
    { source: "bundled", dir: runtimeLayout().skillsDir },
    { source: "managed", dir: paths.skillsDir },
    {
      source: "personal",
      dir: skills.personalDir
        ? resolve(paths.home, skills.personalDir)
        : join(homedir(), ".agents", "skills"),
    },
    { source: "project", dir: join(workspace, ".agents", "skills") },
    { source: "workspace", dir: join(workspace, "skills") },
  ];
}
