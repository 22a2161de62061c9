/**
 * Confines file tools to the workspace. A path is refused (WORKSPACE_ESCAPE) when it has
 * a `..` segment, is absolute outside the workspace, or reaches outside through a
 * symlink anywhere along the way. Links are followed with `lstat`/`readlink`, so a
 * dangling link (`notes.md → /outside/x`, which `existsSync` reports as absent) is
 * followed to where a write would really land.
 */
import { lstatSync, readlinkSync, realpathSync } from "node:fs";
import { dirname, isAbsolute, relative, resolve, sep } from "node:path";
import { ClawboxError } from "../errors/index.ts";

/**
 * A requested path as an error may show it: a relative one as asked, an absolute one not
 * at all. These errors reach strangers, who learn no location on the box from them
 * (docs/SECURITY.md, issue 37 item 5); the workspace's own path is never in them either.
 */
export function shownPath(requested: string): string {
  return isAbsolute(requested) || /^[\\/]/.test(requested)
    ? "(an absolute path)"
    : `"${requested}"`;
}

function escapeError(requested: string, why: string): ClawboxError {
  return new ClawboxError(
    "WORKSPACE_ESCAPE",
    `path ${shownPath(requested)} ${why}; file tools only work inside the workspace`,
    {
      hint: 'use a path relative to the workspace, e.g. "notes/todo.md"',
    },
  );
}

/** True when `path` is `root` or below it (both absolute, already resolved). */
export const isInside = (root: string, path: string) => {
  const rel = relative(root, path);
  return rel === "" || (!rel.startsWith(`..${sep}`) && rel !== ".." && !isAbsolute(rel));
};

const MAX_LINKS = 40;

/** Whether anything (a link too, even a dangling one) is at `path`. */
function entryExists(path: string): boolean {
  try {
    return lstatSync(path, { throwIfNoEntry: false }) !== undefined;
  } catch {
    return false; // ENOTDIR: a file stands where a folder would be
  }
}

/**
 * Where `path` really is: the real path of its deepest existing ancestor plus the
 * missing tail. A dangling symlink is replaced by its target and resolved again.
 */
export function realLocation(path: string, depth = 0): string {
  let current = path;
  const tail: string[] = [];
  for (;;) {
    if (entryExists(current)) break;
    const parent = dirname(current);
    if (parent === current) break;
    tail.unshift(current.slice(parent.length + (parent.endsWith(sep) ? 0 : 1)));
    current = parent;
  }
  let real: string;
  try {
    real = realpathSync(current);
  } catch {
    // `current` is a link whose target (or a link on the way) does not exist yet.
    if (depth >= MAX_LINKS) return resolve("/", "too-many-links");
    const target = resolve(dirname(current), readlinkSync(current));
    real = realLocation(target, depth + 1);
  }
  return tail.length ? resolve(real, ...tail) : real;
}

function realRootOf(workspace: string): string {
  try {
    return realpathSync(resolve(workspace));
  } catch (error) {
    throw new ClawboxError(
      "WORKSPACE_UNREACHABLE",
      `workspace ${workspace} does not exist or cannot be read`,
      { cause: error, hint: "run clawbox doctor" },
    );
  }
}

/** Where a checked path lands: the path to use and its real place under the workspace. */
export interface WorkspaceTarget {
  /** Absolute path as requested (use it for I/O). */
  path: string;
  /** Path of the real location relative to the real workspace, with "/" separators. */
  realRel: string;
}

/** `resolveInWorkspace` plus where the path really lands, for per-file rules. */
export function locateInWorkspace(workspace: string, requested: string): WorkspaceTarget {
  if (typeof requested !== "string" || requested.trim() === "") {
    throw new ClawboxError(
      "TOOL_INVALID_ARGS",
      "path: must be a non-empty path inside the workspace",
    );
  }
  if (requested.includes("\0")) throw escapeError(requested, "contains a NUL byte");
  if (requested.split(/[\\/]+/).includes("..")) throw escapeError(requested, 'uses ".."');
  const root = resolve(workspace);
  const target = isAbsolute(requested) ? resolve(requested) : resolve(root, requested);
  if (!isInside(root, target)) throw escapeError(requested, "is outside the workspace");
  const realRoot = realRootOf(workspace);
  const real = realLocation(target);
  if (!isInside(realRoot, real)) {
    throw escapeError(requested, "leads outside the workspace through a symbolic link");
  }
  return { path: target, realRel: relative(realRoot, real).split(sep).join("/") };
}

/** The absolute path for `requested`, guaranteed inside `workspace` (also after symlinks). */
export function resolveInWorkspace(workspace: string, requested: string): string {
  return locateInWorkspace(workspace, requested).path;
}
