/**
 * The owner's files (SPEC §9a): what a sender who is not an owner may never touch through
 * a file tool, whatever the tool policy grants. Writes are refused for every file that
 * shapes the owner's prompt or memory (bootstrap files, skills, memory, workspace state);
 * reads are refused for private memory (MEMORY.md, USER.md, DREAMS.md, memory/). The rule
 * is applied to where the path really lands, so a symlink inside the workspace
 * (`notes.md → AGENTS.md`) does not get around it. Case is ignored (`agents.md` too).
 * Owners also get read-only access to the bundled/managed skills and the user guide.
 */
import { realpathSync } from "node:fs";
import { isAbsolute, resolve } from "node:path";
import { ClawboxError } from "../errors/index.ts";
import { BOOTSTRAP_FILE_NAMES } from "../workspace/index.ts";
import type { ToolContext } from "./tool.ts";
import { isInside, locateInWorkspace } from "./workspace-path.ts";

export type FileAccess = "read" | "write";

const PRIVATE_FILES = ["memory.md", "user.md", "dreams.md"];
const PRIVATE_DIRS = ["memory"];
const PROMPT_FILES = [...BOOTSTRAP_FILE_NAMES.map((n) => n.toLowerCase()), ...PRIVATE_FILES];
const PROMPT_DIRS = [...PRIVATE_DIRS, "skills", ".agents", ".clawbox"];

function matches(realRel: string, files: string[], dirs: string[]): boolean {
  const rel = realRel.toLowerCase();
  if (files.includes(rel)) return true;
  return dirs.some((dir) => rel === dir || rel.startsWith(`${dir}/`));
}

/** True when a non-owner may not `access` the workspace path `realRel` (real location). */
export function isOwnerFile(realRel: string, access: FileAccess): boolean {
  return access === "write"
    ? matches(realRel, PROMPT_FILES, PROMPT_DIRS)
    : matches(realRel, PRIVATE_FILES, PRIVATE_DIRS);
}

function readRootFor(ctx: ToolContext, requested: string): string | undefined {
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

/**
 * The absolute path a file tool may use for `requested`: inside the workspace (or, for
 * reads, inside a read-only root such as the bundled skills), and never an owner's file
 * for a non-owner. Throws WORKSPACE_ESCAPE or TOOL_DENIED naming the path.
 */
export function resolveToolPath(ctx: ToolContext, requested: string, access: FileAccess): string {
  if (access === "read") {
    const readOnly = readRootFor(ctx, requested);
    if (readOnly) return readOnly;
  }
  const target = locateInWorkspace(ctx.workspace, requested);
  if (!ctx.isOwner && isOwnerFile(target.realRel, access)) {
    throw new ClawboxError(
      "TOOL_DENIED",
      `${access === "write" ? "changing" : "reading"} "${requested}" is reserved for the owner`,
      {
        hint:
          access === "write"
            ? "bootstrap files, skills and memory shape the owner's prompt; only an owner can change them"
            : "private memory (MEMORY.md, USER.md, DREAMS.md, memory/) is only read for an owner",
      },
    );
  }
  return target.path;
}
