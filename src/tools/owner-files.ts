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
 * And by name too (issue 37): the name asked for is judged as well as where it lands
 * (`write SOUL.md` while `SOUL.md → persona/soul.md` does not exist yet); a link's
 * target is protected even while it is missing; a non-owner never writes where a link
 * stands (the atomic rename would replace the owner's link); and when the links under
 * the protected names cannot all be known (the link index's walk was cut short), a
 * non-owner gets nothing it would have to be judged by them (fail closed).
 * Owners also get read-only access to the bundled/managed skills and the user guide;
 * strangers do not.
 */
import { lstatSync, realpathSync, statSync } from "node:fs";
import { isAbsolute, join, relative, resolve, sep } from "node:path";
import { ClawboxError } from "../errors/index.ts";
import { BOOTSTRAP_FILE_NAMES, linkIndexFor } from "../workspace/index.ts";
import type { ToolContext } from "./tool.ts";
import { isInside, locateInWorkspace, realLocation, shownPath } from "./workspace-path.ts";

export type FileAccess = "read" | "write";

const PRIVATE_FILES = ["memory.md", "user.md", "dreams.md"];
const PRIVATE_DIRS = ["memory", "media", "skills", ".agents"];
const PROMPT_FILES = [...BOOTSTRAP_FILE_NAMES.map((n) => n.toLowerCase()), ...PRIVATE_FILES];
const PROMPT_DIRS = [...PRIVATE_DIRS, ".clawbox"];

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

/** Every protected name, for the link index: what either rule protects. */
const LINK_SCOPE = {
  files: [...new Set([...RULES.write.files, ...RULES.read.files])],
  dirs: [...new Set([...RULES.write.dirs, ...RULES.read.dirs])],
};

/** True when `linkRel` (a link's path) is under a name `rule` protects. */
function underRule(linkRel: string, rule: Rule): boolean {
  const first = linkRel.split("/")[0]?.toLowerCase() ?? "";
  return linkRel.includes("/") ? rule.dirs.includes(first) : matches(linkRel, rule);
}

/**
 * What the protected names of `rule` really are in this workspace: the targets of
 * protected names that are links, and of links inside protected folders, relative to
 * the real workspace root (a file target as a file rule, a folder target as a folder;
 * a target that does not exist yet as both, so nothing can be created there). Links are
 * found by the workspace's link index (kept up to date by watchers, no walk per
 * request); their targets are resolved now. `complete` is false when the index could
 * not find them all.
 */
function linkedTargets(
  realRoot: string,
  rule: Rule,
): Rule & { complete: boolean; reason?: string } {
  const snapshot = linkIndexFor(realRoot, LINK_SCOPE).snapshot();
  const found: Rule = { files: [], dirs: [] };
  for (const link of snapshot.links) {
    if (!underRule(link, rule)) continue;
    const target = realLocation(join(realRoot, link));
    if (!isInside(realRoot, target)) continue; // outside: file tools refuse it anyway
    const rel = toRel(realRoot, target).toLowerCase();
    if (rel === "") continue;
    let kind: "file" | "dir" | "missing" = "missing";
    try {
      kind = statSync(target).isDirectory() ? "dir" : "file";
    } catch {
      // dangling: protect the name it would create, as a file and as a folder
    }
    if (kind !== "dir") found.files.push(rel);
    if (kind !== "file") found.dirs.push(rel);
  }
  return {
    ...found,
    complete: snapshot.complete,
    ...(snapshot.reason ? { reason: snapshot.reason } : {}),
  };
}

/** The requested path relative to the workspace as named (before links are followed). */
const requestedRel = (workspace: string, path: string) => toRel(resolve(workspace), path);

/** Whether `path` itself is a symbolic link (dangling or not). */
function isLink(path: string): boolean {
  try {
    return lstatSync(path).isSymbolicLink();
  } catch {
    return false;
  }
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
    `${access === "write" ? "changing" : "reading"} ${shownPath(requested)} is reserved for the owner${why ? ` (${why})` : ""}`,
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
  // Judged by the name asked for as well as where it lands: `write SOUL.md` is refused
  // even while SOUL.md is a link to a file that does not exist yet.
  if (matches(target.realRel, rule) || matches(requestedRel(ctx.workspace, target.path), rule))
    throw denied(requested, access);
  if (access === "write" && isLink(target.path))
    throw denied(
      requested,
      access,
      "it is a symbolic link; only an owner replaces or writes through one",
    );
  const realRoot = realpathSync(resolve(ctx.workspace));
  const linked = linkedTargets(realRoot, rule);
  if (matches(target.realRel, linked))
    throw denied(requested, access, "a protected name links to it");
  if (!linked.complete)
    throw denied(
      requested,
      access,
      `the links under the protected folders could not all be checked: ${linked.reason}`,
    );
  if ((linkCount(target.path) ?? 1) > 1)
    throw denied(requested, access, "it has more than one hard link, so it may be a private file");
  return target.path;
}
