/**
 * Memory: hybrid search with scores and snippets, the memory files, the index status and
 * the last dreaming report (the newest "## Dream" entry of DREAMS.md).
 */
import { existsSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import type { Hono } from "hono";
import { DREAMS_FILE, listMemoryFiles } from "../memory/index.ts";
import { formatBytes } from "../system/index.ts";
import type { ConsoleDeps } from "./console-deps.ts";
import type { ConsoleEnv } from "./console-env.ts";
import { apiError } from "./json-body.ts";

/** The newest dreaming entry of DREAMS.md, or null when dreaming never ran. */
export function lastDream(workspace: string): string | null {
  const path = join(workspace, DREAMS_FILE);
  if (!existsSync(path)) return null;
  const text = readFileSync(path, "utf8");
  const at = text.lastIndexOf("\n## Dream ");
  return at < 0 ? null : text.slice(at + 1).trim();
}

export function registerMemoryRoutes(app: Hono<ConsoleEnv>, deps: ConsoleDeps): void {
  const workspace = deps.paths.workspace;
  app.get("/console/api/memory", async (c) => {
    const files = listMemoryFiles(workspace).map((rel) => {
      const full = join(workspace, rel);
      const bytes = existsSync(full) ? statSync(full).size : 0;
      return { path: rel, bytes, size: formatBytes(bytes) };
    });
    return c.json({
      enabled: deps.memory !== undefined,
      status: deps.memory ? await deps.memory.status() : null,
      files,
      lastDream: lastDream(workspace),
    });
  });

  app.get("/console/api/memory/search", async (c) => {
    const query = (c.req.query("q") ?? "").trim();
    if (!query) return apiError(c, 400, "HTTP_BAD_REQUEST", "q: give a search query");
    if (query.length > 500)
      return apiError(c, 400, "HTTP_BAD_REQUEST", "q: at most 500 characters");
    if (!deps.memory)
      return apiError(c, 409, "MEMORY_DISABLED", "memory is disabled (memory.enabled)");
    return c.json(await deps.memory.search(query));
  });
}
