/**
 * Which workspace files are memory: MEMORY.md (or memory.md), DREAMS.md and every
 * markdown file under memory/. Paths are kept relative to the workspace with forward
 * slashes. `resolveMemoryPath` is the one gate `memory_get` passes through: anything
 * else (other workspace files, `..`, absolute paths, symlinks leading outside) is refused.
 */
import { existsSync, readdirSync, realpathSync, statSync } from "node:fs";
import { isAbsolute, join, relative, resolve, sep } from "node:path";
import { ClawboxError } from "../errors/index.ts";
import { shownPath } from "../tools/index.ts";

export const ROOT_MEMORY_FILES = ["MEMORY.md", "memory.md"] as const;
export const DREAMS_FILE = "DREAMS.md";
export const MEMORY_DIR = "memory";

const DATED = /(?:^|\/)(\d{4}-\d{2}-\d{2})[^/]*\.md$/;

/** The date of a daily note (`memory/2025-01-31.md`), used for temporal decay. */
export function noteDate(relPath: string): string | undefined {
  return DATED.exec(relPath)?.[1];
}

/** The curated long-term file actually present (MEMORY.md preferred), if any. */
export function findMemoryFile(workspace: string): string | undefined {
  for (const name of ROOT_MEMORY_FILES) {
    const full = join(workspace, name);
    if (existsSync(full) && statSync(full).isFile()) return name;
  }
  return undefined;
}

/** True when `abs` exists and its real path lies inside `realRoot` (links followed). */
function staysInside(abs: string, realRoot: string): boolean {
  try {
    const real = realpathSync(abs);
    return real === realRoot || real.startsWith(realRoot + sep);
  } catch {
    return false;
  }
}

function walk(dir: string, rel: string, out: string[], depth: number, realRoot: string): void {
  if (depth > 4 || !staysInside(dir, realRoot)) return;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name.startsWith(".")) continue;
    const abs = join(dir, entry.name);
    const childRel = `${rel}/${entry.name}`;
    // A link counts as what it points to, and only when that is inside the workspace.
    const stat = entry.isSymbolicLink()
      ? staysInside(abs, realRoot)
        ? statSync(abs, { throwIfNoEntry: false })
        : undefined
      : entry;
    if (stat?.isDirectory()) walk(abs, childRel, out, depth + 1, realRoot);
    else if (stat?.isFile() && entry.name.endsWith(".md")) out.push(childRel);
  }
}

/**
 * Every memory file to index, relative to the workspace, sorted. Files and folders whose
 * links lead outside the workspace are left out, as `memory_get` would refuse them.
 */
export function listMemoryFiles(workspace: string): string[] {
  const out: string[] = [];
  if (!existsSync(workspace)) return out;
  const realRoot = realpathSync(workspace);
  const main = findMemoryFile(workspace);
  if (main && staysInside(join(workspace, main), realRoot)) out.push(main);
  walk(join(workspace, MEMORY_DIR), MEMORY_DIR, out, 0, realRoot);
  return out.sort();
}

function isMemoryRel(rel: string): boolean {
  if ((ROOT_MEMORY_FILES as readonly string[]).includes(rel) || rel === DREAMS_FILE) return true;
  return rel.startsWith(`${MEMORY_DIR}/`) && rel.endsWith(".md");
}

/**
 * Resolves a path given by the model to an absolute memory file path, or throws
 * WORKSPACE_ESCAPE naming the path and what is allowed.
 */
export function resolveMemoryPath(
  workspace: string,
  requested: string,
): { rel: string; abs: string } {
  const refuse = (why: string) =>
    new ClawboxError("WORKSPACE_ESCAPE", `memory_get: ${shownPath(requested)} ${why}`, {
      hint: "only MEMORY.md, DREAMS.md and memory/*.md can be read with memory_get; use read for other files",
    });
  const cleaned = requested.trim().replace(/\\/g, "/");
  if (cleaned === "" || cleaned.includes("\0")) throw refuse("is empty or invalid");
  const root = resolve(workspace);
  const abs = isAbsolute(cleaned) ? resolve(cleaned) : resolve(root, cleaned);
  const rel = relative(root, abs).split(sep).join("/");
  if (rel.startsWith("..") || isAbsolute(rel)) throw refuse("is outside the workspace");
  if (!isMemoryRel(rel)) throw refuse("is not a memory file");
  if (existsSync(abs) && !staysInside(abs, realpathSync(root))) {
    throw refuse("leads outside the workspace");
  }
  return { rel, abs };
}
