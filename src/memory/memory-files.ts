/**
 * Which workspace files are memory: MEMORY.md (or memory.md), DREAMS.md and every
 * markdown file under memory/. Paths are kept relative to the workspace with forward
 * slashes. `resolveMemoryPath` is the one gate `memory_get` passes through: anything
 * else (other workspace files, `..`, absolute paths, symlinks leading outside) is refused.
 */
import { existsSync, readdirSync, realpathSync, statSync } from "node:fs";
import { isAbsolute, join, relative, resolve, sep } from "node:path";
import { ClawboxError } from "../errors/index.ts";

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

function walk(dir: string, rel: string, out: string[], depth: number): void {
  if (depth > 4 || !existsSync(dir)) return;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name.startsWith(".")) continue;
    const childRel = `${rel}/${entry.name}`;
    if (entry.isDirectory()) walk(join(dir, entry.name), childRel, out, depth + 1);
    else if (entry.isFile() && entry.name.endsWith(".md")) out.push(childRel);
  }
}

/** Every memory file to index, relative to the workspace, sorted. */
export function listMemoryFiles(workspace: string): string[] {
  const out: string[] = [];
  const main = findMemoryFile(workspace);
  if (main) out.push(main);
  walk(join(workspace, MEMORY_DIR), MEMORY_DIR, out, 0);
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
    new ClawboxError("WORKSPACE_ESCAPE", `memory_get: "${requested}" ${why}`, {
      hint: "only MEMORY.md, DREAMS.md and memory/*.md can be read with memory_get; use read for other files",
    });
  const cleaned = requested.trim().replace(/\\/g, "/");
  if (cleaned === "" || cleaned.includes("\0")) throw refuse("is empty or invalid");
  const root = resolve(workspace);
  const abs = isAbsolute(cleaned) ? resolve(cleaned) : resolve(root, cleaned);
  const rel = relative(root, abs).split(sep).join("/");
  if (rel.startsWith("..") || isAbsolute(rel)) throw refuse("is outside the workspace");
  if (!isMemoryRel(rel)) throw refuse("is not a memory file");
  if (existsSync(abs)) {
    const real = realpathSync(abs);
    const realRoot = realpathSync(root);
    if (real !== realRoot && !real.startsWith(realRoot + sep))
      throw refuse("leads outside the workspace");
  }
  return { rel, abs };
}
