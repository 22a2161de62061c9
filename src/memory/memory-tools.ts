/**
 * The two memory tools the agent offers the model. `memory_search` is described as
 * the mandatory recall step before answering about the past; `memory_get` reads a
 * memory file or a line range of it (for the lines a search hit points at) and
 * nothing else. Expected failures come back as `isError` results, never exceptions.
 */
import { existsSync, readFileSync } from "node:fs";
import { errorMessage, isClawboxError } from "../errors/index.ts";
import { z } from "../schema/index.ts";
import type { AgentTool, ToolOutput } from "../tools/index.ts";
import type { MemorySearchResponse, SearchOptions } from "./hybrid-search.ts";
import { resolveMemoryPath } from "./memory-files.ts";

export interface MemoryToolDeps {
  workspace: string;
  search(
    query: string,
    options?: SearchOptions & { sessionKey?: string; principal?: string },
  ): Promise<MemorySearchResponse>;
}

const searchArgs = z.object({
  query: z.string().check(z.trim(), z.minLength(1, "query must not be empty")),
  maxResults: z.optional(z.number().check(z.int(), z.minimum(1), z.maximum(20))),
  minScore: z.optional(z.number().check(z.minimum(0), z.maximum(1))),
});

const getArgs = z.object({
  path: z.string().check(z.minLength(1)),
  from: z.optional(z.number().check(z.int(), z.minimum(1))),
  lines: z.optional(z.number().check(z.int(), z.minimum(1), z.maximum(1000))),
});

const MAX_CHARS = 20_000;

function text(value: string, isError = false): ToolOutput {
  return { content: [{ type: "text", text: value }], ...(isError ? { isError: true } : {}) };
}

function invalid(tool: string, error: z.core.$ZodError): ToolOutput {
  return text(
    `${tool}: ${error.issues.map((i) => `${i.path.join(".") || "args"}: ${i.message}`).join("; ")}`,
    true,
  );
}

export function createMemoryTools(deps: MemoryToolDeps): AgentTool[] {
  const memorySearch: AgentTool = {
    name: "memory_search",
    group: "memory",
    description:
      "Mandatory recall step: before answering anything about prior work, decisions, dates, people, " +
      "preferences or todos, search MEMORY.md and memory/*.md with this tool. Returns the best matching " +
      "snippets with path and line range (read more with memory_get). Hybrid semantic + keyword search; " +
      "works for Chinese and English.",
    parameters: {
      type: "object",
      properties: {
        query: { type: "string", description: "What to recall, in natural language or keywords." },
        maxResults: { type: "integer", minimum: 1, maximum: 20, description: "Default 6." },
        minScore: { type: "number", minimum: 0, maximum: 1, description: "Default 0.35." },
      },
      required: ["query"],
      additionalProperties: false,
    },
    async execute(args, ctx) {
      const parsed = searchArgs.safeParse(args);
      if (!parsed.success) return invalid("memory_search", parsed.error);
      try {
        const response = await deps.search(parsed.data.query, {
          ...(parsed.data.maxResults !== undefined ? { maxResults: parsed.data.maxResults } : {}),
          ...(parsed.data.minScore !== undefined ? { minScore: parsed.data.minScore } : {}),
          sessionKey: ctx.sessionKey,
          // Transcripts of the asker's own sessions only (SPEC §9a).
          principal: ctx.principal ?? ctx.senderId ?? "anonymous",
        });
        const body = {
          mode: response.mode,
          ...(response.reason ? { note: `keyword-only search: ${response.reason}` } : {}),
          results: response.results.map((r) => ({
            path: r.path,
            startLine: r.startLine,
            endLine: r.endLine,
            score: r.score,
            snippet: r.snippet,
          })),
        };
        return {
          content: [{ type: "text", text: JSON.stringify(body, null, 1) }],
          details: response,
        };
      } catch (error) {
        return text(`memory_search failed: ${errorMessage(error)}`, true);
      }
    },
  };

  const memoryGet: AgentTool = {
    name: "memory_get",
    group: "memory",
    description:
      "Read a memory file (MEMORY.md, DREAMS.md or memory/*.md) or a line range of it, e.g. the lines a " +
      "memory_search result points at. Lines are numbered from 1.",
    parameters: {
      type: "object",
      properties: {
        path: { type: "string", description: "Workspace-relative path, e.g. memory/2025-01-31.md" },
        from: { type: "integer", minimum: 1, description: "First line (default 1)." },
        lines: {
          type: "integer",
          minimum: 1,
          maximum: 1000,
          description: "Number of lines (default: to the end).",
        },
      },
      required: ["path"],
      additionalProperties: false,
    },
    async execute(args) {
      const parsed = getArgs.safeParse(args);
      if (!parsed.success) return invalid("memory_get", parsed.error);
      try {
        const { rel, abs } = resolveMemoryPath(deps.workspace, parsed.data.path);
        if (!existsSync(abs)) return text(`memory_get: ${rel} does not exist`, true);
        const all = readFileSync(abs, "utf8").split("\n");
        const from = parsed.data.from ?? 1;
        if (from > all.length) return text(`memory_get: ${rel} has only ${all.length} lines`, true);
        const end = parsed.data.lines
          ? Math.min(all.length, from - 1 + parsed.data.lines)
          : all.length;
        let body = all.slice(from - 1, end).join("\n");
        let note = `${rel} lines ${from}-${end} of ${all.length}`;
        if (body.length > MAX_CHARS) {
          body = body.slice(0, MAX_CHARS);
          note += ` (cut at ${MAX_CHARS} characters; ask for a smaller range)`;
        }
        return {
          content: [{ type: "text", text: `[${note}]\n${body}` }],
          details: { path: rel, from, to: end },
        };
      } catch (error) {
        if (isClawboxError(error)) return text(error.message, true);
        return text(`memory_get failed: ${errorMessage(error)}`, true);
      }
    },
  };

  return [memorySearch, memoryGet];
}
