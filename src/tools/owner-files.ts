/**
 * The owner's files (SPEC §9a): what a sender who is not an owner may never touch through
 * a file tool, or attach to a reply, whatever the tool policy grants. Writes are refused
 * for every file that shapes the owner's prompt or memory (bootstrap files, skills,
 * memory, workspace state); reads are refused for private memory (MEMORY.md, USER.md,
 * DREAMS.md, memory/), the camera's pictures (media/) and skills (skills/, .agents/).
 *
 * The rules hold by identity, not by name (issue 23):
 * - a path is judged where it really lands, so a symlink inside the workspace
 *   (`notes.md → AGENTS.md`) does not get around them; case is ignored (`agents.md`);
 * - a protected name that is itself a link protects its target too
 *   (`MEMORY.md → notes/MEMORY.md` makes `notes/MEMORY.md` private), and so does a link
 *   inside a protected folder (`memory/x.md → ../notes/x.md`);
 * - a file with more than one hard link is refused to strangers altogether: it may be a
 *   private or bootstrap file under another name (`notes/u.md` = `USER.md`).
 * Owners also get read-only access to the bundled/managed skills and the user guide;
 * strangers do not.
 */
import { type Dirent, readdirSync, realpathSync, statSync } from "node:fs";
import { isAbsolute, join, relative, resolve, sep } from "node:path";
import { ClawboxError } from "../errors/index.ts";
import { BOOTSTRAP_FILE_NAMES } from "../workspace/index.ts";
import type { ToolContext } from "./tool.ts";
import { isInside, locateInWorkspace } from "./workspace-path.ts";

export type FileAccess = "read" | "write";

const PRIVATE_FILES = ["memory.md", "user.md", "dreams.md"];
const PRIVATE_DIRS = ["memory", "media", "skills", ".agents"];
const PROMPT_FILES = [...BOOTSTRAP_FILE_NAMES.map((n) => n.toLowerCase()), ...PRIVATE_FILES];
const PROMPT_DIRS = [...PRIVATE_DIRS, ".clawbox"];
/** Entries looked at when searching protected folders for links (a bound, not a limit users meet). */
const MAX_WALK = 5000;

interface Rule {
  files: string[];
  dirs: string[];
}

const RULES: Record<FileAccess, Rule> = {
  write: { files: PROMPT_FILES, dirs: PROMPT_DIRS },
  read: { files: PRIVATE_FILES, dirs: PRIVATE_DIRS },
};

function matches(realRel: string, rule: Rule): boolean {
  const rel = realRel.toLowerCase();
  if (rule.files.includes(rel)) return true;
  return rule.dirs.some((dir) => rel === dir || rel.startsWith(`${dir}/`));
}

const toRel = (root: string, path: string) => relative(root, path).split(sep).join("/");

/**
 * What the protected names of `rule` really are in this workspace: the targets of
 * protected names that are links, and of links inside protected folders, relative to
 * the real workspace root (a file target as a file rule, a folder target as a folder).
 */
function linkedTargets(realRoot: string, rule: Rule): Rule {
  const found: Rule = { files: [], dirs: [] };
  const add = (linkPath: string) => {
    let target: string;
    try {
      target = realpathSync(linkPath);
    } catch {
      return; // dangling: nothing there to protect yet (writes through it are judged by locateInWorkspace)
    }
    if (!isInside(realRoot, target)) return;
    const rel = toRel(realRoot, target).toLowerCase();
    if (rel === "") return;
    let isDir = false;
    try {
      isDir = statSync(target).isDirectory();
    } catch {
      return;
    }
    (isDir ? found.dirs : found.files).push(rel);
  };
  let seen = 0;
  const walk = (dir: string) => {
    let entries: Dirent[];
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) {
      if (++seen > MAX_WALK) return;
      const path = join(dir, entry.name);
      if (entry.isSymbolicLink()) add(path);
      else if (entry.isDirectory()) walk(path);
    }
  };
  let top: Dirent[];
  try {
    top = readdirSync(realRoot, { withFileTypes: true });
  } catch {
    return found;
  }
  for (const entry of top) {
    const name = entry.name.toLowerCase();
    const path = join(realRoot, entry.name);
    if (rule.files.includes(name) && entry.isSymbolicLink()) add(path);
    if (!rule.dirs.includes(name)) continue;
    if (entry.isSymbolicLink()) add(path);
    else if (entry.isDirectory()) walk(path);
  }
  return found;
}

/** More than one name for the same file (a hard link), or undefined when it does not exist. */
function linkCount(path: string): number | undefined {
  try {
    const stat = statSync(path);
    return stat.isFile() ? stat.nlink : undefined;
  } catch {
    return undefined;
  }
}

function denied(requested: string, access: FileAccess, why?: string): ClawboxError {
  return new ClawboxError(
    "TOOL_DENIED",
    `${access === "write" ? "changing" : "reading"} "${requested}" is reserved for the owner${why ? ` (${why})` : ""}`,
    {
      hint:
        access === "write"
          ? "bootstrap files, skills and memory shape the owner's prompt; only an owner can change them"
          : "private memory (MEMORY.md, USER.md, DREAMS.md, memory/), camera pictures (media/) and skills are only read for an owner",
    },
  );
}

function readRootFor(ctx: Pick<ToolContext, "readRoots">, requested: string): string | undefined {
  if (!isAbsolute(requested) || requested.includes("\0")) return undefined;
  let real: string;
  try {
    real = realpathSync(resolve(requested));
  } catch {
    return undefined;
  }
  for (const root of ctx.readRoots ?? []) {
    try {
      if (isInside(realpathSync(root), real)) return real;
    } catch {
      // a root that does not exist grants nothing
    }
  }
  return undefined;
}

/** Who asks, for the owner-file rules: a tool call's context or a reply's sender. */
export type FileRequester = Pick<ToolContext, "workspace" | "isOwner" | "readRoots">;

/**
 * The absolute path a file tool may use for `requested`: inside the workspace (or, for
 * an owner's reads, inside a read-only root such as the bundled skills), and never an
 * owner's file for a non-owner, by name or by identity. Throws WORKSPACE_ESCAPE or
 * TOOL_DENIED naming the path.
 */
export function resolveToolPath(ctx: FileRequester, requested: string, access: FileAccess): string {
  if (access === "read" && ctx.isOwner) {
    const readOnly = readRootFor(ctx, requested);
    if (readOnly) return readOnly;
  }
  const target = locateInWorkspace(ctx.workspace, requested);
  if (ctx.isOwner) return target.path;
  const rule = RULES[access];
  if (matches(target.realRel, rule)) throw denied(requested, access);
  const realRoot = realpathSync(resolve(ctx.workspace));
  if (matches(target.realRel, linkedTargets(realRoot, rule)))
    throw denied(requested, access, "a protected name links to it");
  if ((linkCount(target.path) ?? 1) > 1)
    throw denied(requested, access, "it has more than one hard link, so it may be a private file");
  return target.path;
}
