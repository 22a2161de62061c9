/**
 * The symbolic links under the owner's protected names (issue 37): top-level protected
 * names that are links (`SOUL.md → persona/soul.md`, `memory → archive`) and every link
 * inside a protected folder (`memory/archive → ../notes/private-archive`). The owner-file
 * rules protect their targets, so they must know every one of them.
 *
 * The set is built by one walk of the protected folders and then kept up to date by
 * watchers (the workspace root, and each protected folder recursively): a change inside
 * a protected folder updates only the path it names, so no request walks the tree (a
 * camera dropping snapshots into `media/` costs one `lstat` each). Top-level names are
 * `lstat`ed on every question, so a link made there a moment ago is never missed.
 *
 * It fails closed: when the walk is cut short (more than `maxEntries` entries, deeper
 * than `maxDepth`, a folder that cannot be read) or the watchers fail, `complete` is
 * false and the caller refuses strangers everything it would have to judge by it,
 * until a later walk succeeds. Link targets are not kept here: the caller resolves them
 * when it asks, so a link whose target changes (or is created later) is judged as it is.
 */
import { type Dirent, type FSWatcher, lstatSync, readdirSync, watch } from "node:fs";
import { join } from "node:path";

/** The protected names, lowercase: top-level files and top-level folders. */
export interface LinkScope {
  files: readonly string[];
  dirs: readonly string[];
}

export interface LinkIndexOptions {
  /** Entries one walk may look at before it gives up (and fails closed). */
  maxEntries?: number;
  /** Folder depth below a protected folder a walk goes to before it gives up. */
  maxDepth?: number;
  /** false: no watchers; every question walks again (bounded, failing closed). */
  watch?: boolean;
}

export interface LinkSnapshot {
  /** Links under protected names, relative to the root with "/" separators, as on disk. */
  links: string[];
  /** False when a walk was cut short: the links found may not be all of them. */
  complete: boolean;
  /** Why it is not complete, in words. */
  reason?: string;
}

/** Bounds of one walk: about 100 ms of `readdir` on a Raspberry Pi 4. */
export const MAX_LINK_WALK_ENTRIES = 200_000;
export const MAX_LINK_WALK_DEPTH = 32;

const lstatOrUndefined = (path: string) => {
  try {
    return lstatSync(path);
  } catch {
    return undefined;
  }
};

export class LinkIndex {
  /** Links found inside protected folders (top-level links are looked at on each ask). */
  private readonly inner = new Set<string>();
  private readonly watchers = new Map<string, FSWatcher>();
  private built = false;
  private cutShort: string | undefined;
  private readonly maxEntries: number;
  private readonly maxDepth: number;
  private readonly watching: boolean;
  /** Bumped on every change the watchers saw. */
  generation = 0;
  /** Whole walks so far (a change inside a protected folder does not cause one). */
  walks = 0;

  constructor(
    readonly root: string,
    private readonly scope: LinkScope,
    options: LinkIndexOptions = {},
  ) {
    this.maxEntries = options.maxEntries ?? MAX_LINK_WALK_ENTRIES;
    this.maxDepth = options.maxDepth ?? MAX_LINK_WALK_DEPTH;
    this.watching = options.watch ?? true;
  }

  /** The links under protected names now, and whether the list is known to be whole. */
  snapshot(): LinkSnapshot {
    if (!this.built || !this.watching) this.rebuild();
    const top = this.topLevel();
    const links = [...top.links, ...this.inner];
    const reason = this.cutShort;
    return { links, complete: reason === undefined, ...(reason ? { reason } : {}) };
  }

  close(): void {
    for (const watcher of this.watchers.values()) watcher.close();
    this.watchers.clear();
    this.built = false;
  }

  /** Protected top-level names that are links, and the protected folders that are real. */
  private topLevel(): { links: string[]; dirs: string[] } {
    let entries: Dirent[];
    try {
      entries = readdirSync(this.root, { withFileTypes: true });
    } catch {
      return { links: [], dirs: [] };
    }
    const links: string[] = [];
    const dirs: string[] = [];
    for (const entry of entries) {
      const name = entry.name.toLowerCase();
      const protectedName = this.scope.files.includes(name) || this.scope.dirs.includes(name);
      if (!protectedName) continue;
      if (entry.isSymbolicLink()) links.push(entry.name);
      else if (entry.isDirectory() && this.scope.dirs.includes(name)) dirs.push(entry.name);
    }
    return { links, dirs };
  }

  private rebuild(): void {
    this.close();
    this.inner.clear();
    this.cutShort = undefined;
    this.walks += 1;
    // Watchers first, so nothing made during the walk is missed; one that cannot be
    // attached sets `built` back, and the next question walks again.
    this.built = true;
    const budget = { left: this.maxEntries };
    if (this.watching) this.watchRoot();
    for (const dir of this.topLevel().dirs) {
      if (this.watching) this.watchFolder(dir);
      this.walk(dir, 0, budget);
    }
  }

  /** Adds the links under `rel` (a folder relative to the root), within the budget. */
  private walk(rel: string, depth: number, budget: { left: number }): void {
    if (this.cutShort) return;
    if (depth > this.maxDepth) {
      this.cutShort = `${rel} is deeper than ${this.maxDepth} folders`;
      return;
    }
    let entries: Dirent[];
    try {
      entries = readdirSync(join(this.root, rel), { withFileTypes: true });
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === "ENOENT" || code === "ENOTDIR") return; // gone meanwhile: nothing in it
      this.cutShort = `${rel} cannot be read (${code ?? "error"})`;
      return;
    }
    for (const entry of entries) {
      if (--budget.left < 0) {
        this.cutShort = `more than ${this.maxEntries} entries in the protected folders`;
        return;
      }
      const child = `${rel}/${entry.name}`;
      if (entry.isSymbolicLink()) this.inner.add(child);
      else if (entry.isDirectory()) this.walk(child, depth + 1, budget);
    }
  }

  /** One path inside a protected folder changed: re-read just that path. */
  private update(rel: string): void {
    if (this.cutShort) {
      // Incomplete already: something changed, so try a whole walk again on the next ask.
      this.built = false;
      return;
    }
    for (const link of this.inner)
      if (link === rel || link.startsWith(`${rel}/`)) this.inner.delete(link);
    const stat = lstatOrUndefined(join(this.root, rel));
    if (!stat) return;
    if (stat.isSymbolicLink()) this.inner.add(rel);
    // A folder moved in: walk it (too big or too deep leaves the index incomplete).
    else if (stat.isDirectory())
      this.walk(rel, rel.split("/").length - 1, { left: this.maxEntries });
  }

  private watchFolder(dir: string): void {
    try {
      const watcher = watch(
        join(this.root, dir),
        { recursive: true, persistent: false },
        (_event, filename) => {
          this.generation += 1;
          if (filename === null || filename === undefined) this.built = false;
          else this.update(`${dir}/${filename.toString()}`);
        },
      );
      watcher.on("error", () => this.lose());
      this.watchers.set(dir, watcher);
    } catch {
      this.lose();
    }
  }

  private watchRoot(): void {
    try {
      const watcher = watch(this.root, { persistent: false }, (_event, filename) => {
        this.generation += 1;
        const name = filename?.toString().toLowerCase();
        // A protected folder appeared, went, or became a link: walk again on the next ask.
        if (name === undefined || this.scope.dirs.includes(name)) this.built = false;
      });
      watcher.on("error", () => this.lose());
      this.watchers.set("", watcher);
    } catch {
      this.lose();
    }
  }

  /** A watcher failed: nothing vouches for the set any more, so walk on the next ask. */
  private lose(): void {
    this.built = false;
  }
}

const MAX_ROOTS = 8;
const indexes = new Map<string, LinkIndex>();

/**
 * The shared index of a workspace (by its real path), created on first use; the few
 * most recently used workspaces keep theirs (a process normally has one).
 */
export function linkIndexFor(realRoot: string, scope: LinkScope): LinkIndex {
  let index = indexes.get(realRoot);
  if (index) indexes.delete(realRoot);
  else index = new LinkIndex(realRoot, scope);
  indexes.set(realRoot, index);
  while (indexes.size > MAX_ROOTS) {
    const oldest = indexes.keys().next().value as string;
    indexes.get(oldest)?.close();
    indexes.delete(oldest);
  }
  return index;
}
