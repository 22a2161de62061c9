/**
 * Creates the workspace with the default files. Never overwrites a file that exists,
 * and never brings BOOTSTRAP.md back once the ritual was seeded (it is only written
 * into a brand-new workspace). Each file is written durably (temp file, fsync, rename,
 * fsync of the folder): a power cut seconds after the first start must not leave the
 * files created but their bytes unwritten, which ext4 shows as files full of NUL bytes
 * that would then never be seeded again. A default file found full of NUL bytes (left
 * that way by an earlier version) gets its default text back.
 */
import { existsSync, lstatSync, mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { ClawboxError, errorMessage } from "../errors/index.ts";
import { writeFileAtomic } from "../system/index.ts";
import { WORKSPACE_TEMPLATES } from "./templates/index.ts";
import { readWorkspaceState, writeWorkspaceState } from "./workspace-state.ts";

export interface SeedResult {
  workspace: string;
  /** Paths relative to the workspace that were created (files and `memory/`). */
  created: string[];
}

const IDENTITY_FILES = ["IDENTITY.md", "USER.md", "SOUL.md", "MEMORY.md", "memory.md"];

/** Bytes a power cut left unwritten: a non-empty file of NUL bytes only. */
function onlyNulBytes(path: string): boolean {
  try {
    const bytes = readFileSync(path);
    return bytes.length > 0 && bytes.every((b) => b === 0);
  } catch {
    return false;
  }
}

/**
 * Anything stands at the path, a link that points nowhere included: the owner's link to a
 * file not written yet (`SOUL.md → persona/soul.md`, `memory → archive/mem`) is theirs,
 * never replaced by a default (docs/SECURITY.md, "Links that point nowhere").
 */
function present(path: string): boolean {
  try {
    lstatSync(path);
    return true;
  } catch {
    return false;
  }
}

export function seedWorkspace(dir: string): SeedResult {
  const created: string[] = [];
  try {
    // Closed to other local users (USER.md, MEMORY.md): a workspace outside the home
    // (CLAWBOX_WORKSPACE) is not behind the home's 0700.
    if (!existsSync(dir)) mkdirSync(dir, { recursive: true, mode: 0o750 });
    const state = readWorkspaceState(dir);
    const brandNew = !state.seededAt && !IDENTITY_FILES.some((f) => present(join(dir, f)));
    const now = new Date().toISOString();
    for (const [name, text] of Object.entries(WORKSPACE_TEMPLATES)) {
      const path = join(dir, name);
      if (present(path)) {
        if (!onlyNulBytes(path)) continue;
      } else if (name === "BOOTSTRAP.md" && (!brandNew || state.bootstrapSeededAt)) continue;
      writeFileAtomic(path, text);
      created.push(name);
    }
    if (!present(join(dir, "memory"))) {
      mkdirSync(join(dir, "memory"));
      created.push("memory/");
    }
    if (created.length > 0 || !state.seededAt) {
      writeWorkspaceState(dir, {
        ...state,
        seededAt: state.seededAt ?? now,
        ...(created.includes("BOOTSTRAP.md") ? { bootstrapSeededAt: now } : {}),
      });
    }
  } catch (error) {
    throw new ClawboxError(
      "WORKSPACE_UNREACHABLE",
      `cannot create workspace ${dir}: ${errorMessage(error)}`,
      {
        hint: 'check that the folder is writable by the clawbox user, or set "workspace" in clawbox.json',
        cause: error,
      },
    );
  }
  return { workspace: dir, created };
}
