/**
 * Loads the bootstrap files of a workspace for one turn: reads through the cache,
 * reports missing files instead of skipping them silently, and applies the per-file and
 * total character limits in prompt order. A bootstrap file that resolves outside the
 * workspace (`USER.md → /etc/passwd`) is refused, never injected (it would go to the
 * model, possibly a cloud one), and reported with the reason.
 */
import { realpathSync, statSync } from "node:fs";
import { join, relative, sep } from "node:path";
import { BOOTSTRAP_FILE_ALIASES, type BootstrapFileName } from "./bootstrap-files.ts";
import type { FileCache } from "./file-cache.ts";
import { maskToolsMdSecrets } from "./tools-md.ts";
import { truncateBootstrap } from "./truncate-bootstrap.ts";

export interface RawBootstrapFile {
  name: BootstrapFileName;
  path: string;
  /** undefined when missing or unreadable */
  text: string | undefined;
  missing: boolean;
  error?: string;
}

export interface LoadedWorkspace {
  workspace: string;
  reachable: boolean;
  error?: string;
  files: RawBootstrapFile[];
}

export function readBootstrapFiles(
  workspace: string,
  names: readonly BootstrapFileName[],
  cache: FileCache,
): LoadedWorkspace {
  try {
    if (!statSync(workspace).isDirectory()) {
      return {
        workspace,
        reachable: false,
        error: "not a folder",
        files: names.map((n) => absent(workspace, n, "workspace unreachable")),
      };
    }
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? String(error);
    return {
      workspace,
      reachable: false,
      error: String(code),
      files: names.map((n) => absent(workspace, n, "workspace unreachable")),
    };
  }
  const realRoot = realpathSync(workspace);
  const files = names.map((name): RawBootstrapFile => {
    const candidates = BOOTSTRAP_FILE_ALIASES[name] ?? [name];
    let last: RawBootstrapFile = absent(workspace, name);
    for (const candidate of candidates) {
      const path = join(workspace, candidate);
      const outside = outsideWorkspace(path, realRoot);
      if (outside) return { name, path, text: undefined, missing: true, error: outside };
      const read = cache.read(path);
      if (read.ok) {
        // A password written into TOOLS.md never reaches the model (the parser flags it).
        const text = name === "TOOLS.md" ? maskToolsMdSecrets(read.text) : read.text;
        return { name, path, text, missing: false };
      }
      if (read.reason !== "missing")
        last = { name, path, text: undefined, missing: true, error: read.error ?? read.reason };
    }
    return last;
  });
  return { workspace, reachable: true, files };
}

/** Why `path` may not be read as a bootstrap file (it leads outside), or undefined. */
export function outsideWorkspace(path: string, realRoot: string): string | undefined {
  let real: string;
  try {
    real = realpathSync(path);
  } catch {
    return undefined; // missing (or a dangling link): nothing to read
  }
  const rel = relative(realRoot, real);
  if (rel === "" || rel === ".." || rel.startsWith(`..${sep}`) || rel.startsWith(sep))
    return `refused: a symbolic link to ${real}, outside the workspace`;
  return undefined;
}

function absent(workspace: string, name: BootstrapFileName, error?: string): RawBootstrapFile {
  return {
    name,
    path: join(workspace, name),
    text: undefined,
    missing: true,
    ...(error ? { error } : {}),
  };
}

export interface InjectedFile {
  name: BootstrapFileName;
  path: string;
  rawChars: number;
  injectedChars: number;
  truncated: boolean;
  missing: boolean;
  text: string;
}

/**
 * Applies the limits: each file gets at most `perFileMaxChars`, and the total is shared
 * out smallest file first (water-filling), so short files such as IDENTITY.md stay whole
 * and only the large ones are truncated. Missing files cost nothing and are reported
 * with `missing: true`.
 */
export function limitBootstrapFiles(
  files: readonly RawBootstrapFile[],
  perFileMaxChars: number,
  totalMaxChars: number,
): InjectedFile[] {
  const budgets = new Map<number, number>();
  const present = files
    .map((file, index) => ({ index, length: file.text?.length ?? -1 }))
    .filter((f) => f.length >= 0)
    .sort((a, b) => a.length - b.length);
  let left = Math.max(0, totalMaxChars);
  present.forEach((file, k) => {
    const share = Math.floor(left / (present.length - k));
    const budget = Math.min(perFileMaxChars, file.length, share);
    budgets.set(file.index, budget);
    left -= budget;
  });
  return files.map((file, index) => {
    if (file.text === undefined) {
      return {
        name: file.name,
        path: file.path,
        rawChars: 0,
        injectedChars: 0,
        truncated: false,
        missing: true,
        text: "",
      };
    }
    const cut = truncateBootstrap(file.name, file.text, budgets.get(index) ?? 0);
    return {
      name: file.name,
      path: file.path,
      rawChars: file.text.length,
      injectedChars: cut.text.length,
      truncated: cut.truncated,
      missing: false,
      text: cut.text,
    };
  });
}
