/**
 * Confines file tools to the workspace. A path is refused (WORKSPACE_ESCAPE) when it has
 * a `..` segment, is absolute outside the workspace, or reaches outside through a
 * symlink anywhere along the way (checked on the real path of the deepest existing
 * ancestor, so a new file under a symlinked folder is caught too).
 */
import { existsSync, realpathSync } from "node:fs";
import { dirname, isAbsolute, relative, resolve, sep } from "node:path";
import { ClawboxError } from "../errors/index.ts";

function escapeError(requested: string, workspace: string, why: string): ClawboxError {
  return new ClawboxError(
    "WORKSPACE_ESCAPE",
    `path "${requested}" ${why}; file tools only work inside the workspace ${workspace}`,
    {
      hint: 'use a path relative to the workspace, e.g. "notes/todo.md"',
    },
  );
}

const inside = (root: string, path: string) => {
  const rel = relative(root, path);
  return rel === "" || (!rel.startsWith(`..${sep}`) && rel !== ".." && !isAbsolute(rel));
};

function realOfDeepestExisting(path: string): string {
  let current = path;
  const tail: string[] = [];
  while (!existsSync(current)) {
    const parent = dirname(current);
    if (parent === current) break;
    tail.unshift(current.slice(parent.length + (parent.endsWith(sep) ? 0 : 1)));
    current = parent;
  }
  const real = realpathSync(current);
  return tail.length ? resolve(real, ...tail) : real;
}

/** The absolute path for `requested`, guaranteed inside `workspace` (also after symlinks). */
export function resolveInWorkspace(workspace: string, requested: string): string {
  if (typeof requested !== "string" || requested.trim() === "") {
    throw new ClawboxError(
      "TOOL_INVALID_ARGS",
      "path: must be a non-empty path inside the workspace",
    );
  }
  if (requested.includes("\0")) throw escapeError(requested, workspace, "contains a NUL byte");
  if (requested.split(/[\\/]+/).includes(".."))
    throw escapeError(requested, workspace, 'uses ".."');
  const root = resolve(workspace);
  const target = isAbsolute(requested) ? resolve(requested) : resolve(root, requested);
  if (!inside(root, target)) throw escapeError(requested, workspace, "is outside the workspace");
  let realRoot: string;
  try {
    realRoot = realpathSync(root);
  } catch (error) {
    throw new ClawboxError(
      "WORKSPACE_UNREACHABLE",
      `workspace ${workspace} does not exist or cannot be read`,
      {
        cause: error,
        hint: "run clawbox doctor",
      },
    );
  }
  if (!inside(realRoot, realOfDeepestExisting(target))) {
    throw escapeError(requested, workspace, "leads outside the workspace through a symbolic link");
  }
  return target;
}
