/** `clawbox memory status|index|search|dream`: inspect and use the memory index from a shell. */
import { ClawboxError } from "../../errors/index.ts";
import { createMemory, type MemoryService } from "../../memory/index.ts";
import type { CliContext } from "../cli-context.ts";
import type { Command } from "../command.ts";
import { EXIT } from "../exit-codes.ts";
import { parseWith } from "../parse-args.ts";

function open(ctx: CliContext): MemoryService {
  const { config } = ctx.config();
  return createMemory({
    config: { ...config, memory: { ...config.memory, watch: false } },
    store: ctx.store(),
    paths: ctx.resolvedPaths(),
    logger: ctx.logger(),
  });
}

const JSON_ONLY = { options: { json: { type: "boolean" } }, positionals: false } as const;
const INDEX = {
  options: { json: { type: "boolean" }, force: { type: "boolean" } },
  positionals: false,
} as const;
const SEARCH = {
  options: {
    json: { type: "boolean" },
    max: { type: "string" },
    "min-score": { type: "string" },
  },
  positionals: true,
} as const;

export const memoryCommand: Command = {
  name: "memory",
  args: { subcommands: { status: JSON_ONLY, index: INDEX, search: SEARCH, dream: JSON_ONLY } },
  usage: [
    "Usage: clawbox memory <status|index|search|dream> [options]",
    "  status [--json]                      index size, embedding model, mode, dreaming schedule",
    "  index [--force] [--json]             bring the index up to date (--force re-reads every file)",
    "  search QUERY [--json] [--max N] [--min-score X]",
    "                                       hybrid search; --json prints {mode, results:[{source,path,startLine,endLine,score,textScore,vectorScore,snippet}]}",
    "  dream [--json]                       run one dreaming pass now (promotions to MEMORY.md, diary in DREAMS.md)",
  ].join("\n"),
  async run(ctx, args) {
    const [sub, ...rest] = args;
    const memory = open(ctx);
    try {
      if (sub === "status") {
        const { values } = parseWith(rest, JSON_ONLY);
        const s = await memory.status();
        const budget = memory.startupBudget();
        if (values.json) {
          ctx.stdout.write(`${JSON.stringify({ ...s, startupBudget: budget }, null, 2)}\n`);
          return EXIT.ok;
        }
        const lines = [
          `workspace: ${s.workspace}`,
          `mode: ${s.mode}${s.reason ? ` (${s.reason})` : ""}`,
          `embedding model: ${s.model ? `${s.model.name} (${s.model.dimension} dims)` : "none"}`,
          `index: ${s.files} file(s), ${s.chunks} chunk(s), ${s.embeddedChunks} with vectors, ${s.cachedEmbeddings} cached embedding(s)`,
          `recalls logged: ${s.recalls}`,
          `sqlite-vec: ${s.sqliteVec ?? "not loaded"}`,
          `dreaming: ${s.dreaming.enabled ? `on, preset ${s.dreaming.preset} (${s.dreaming.cron})` : "off"}`,
          budget.file
            ? `${budget.file}: ${budget.rawChars} chars, startup budget ${budget.budgetChars}${budget.truncated ? ` — TRUNCATED: ${budget.advice}` : ""}`
            : "MEMORY.md: not present",
        ];
        ctx.stdout.write(`${lines.join("\n")}\n`);
        return EXIT.ok;
      }
      if (sub === "index") {
        const { values } = parseWith(rest, INDEX);
        const stats = await memory.index({ force: values.force ?? false });
        if (values.json) ctx.stdout.write(`${JSON.stringify(stats)}\n`);
        else {
          ctx.stdout.write(
            `${stats.files} file(s): ${stats.changedFiles} changed, ${stats.removedFiles} removed; ` +
              `${stats.chunksAdded} chunk(s) added, ${stats.chunksRemoved} removed; ${stats.embedded} embedded, ` +
              `${stats.cacheHits} from cache${stats.rebuilt ? `; full rebuild: ${stats.rebuilt}` : ""} (${Math.round(stats.ms)} ms)\n`,
          );
        }
        return EXIT.ok;
      }
      if (sub === "search") {
        const { values, positionals } = parseWith(rest, SEARCH);
        const query = positionals.join(" ").trim();
        if (!query) throw new ClawboxError("CLI_USAGE", "search needs a QUERY");
        const max = values.max === undefined ? undefined : Number(values.max);
        const minScore =
          values["min-score"] === undefined ? undefined : Number(values["min-score"]);
        if (max !== undefined && (!Number.isInteger(max) || max < 1))
          throw new ClawboxError("CLI_USAGE", "--max must be a positive integer");
        if (minScore !== undefined && !(minScore >= 0 && minScore <= 1))
          throw new ClawboxError("CLI_USAGE", "--min-score must be between 0 and 1");
        const res = await memory.search(query, {
          ...(max !== undefined ? { maxResults: max } : {}),
          ...(minScore !== undefined ? { minScore } : {}),
          sessionKey: "cli",
        });
        const results = res.results.map((r) => ({
          source: r.source,
          path: r.path,
          ...(r.sessionKey ? { sessionKey: r.sessionKey, entryIds: r.entryIds ?? [] } : {}),
          startLine: r.startLine,
          endLine: r.endLine,
          score: r.score,
          textScore: r.textScore,
          ...(r.vectorScore !== undefined ? { vectorScore: r.vectorScore } : {}),
          snippet: r.snippet,
        }));
        if (values.json) {
          ctx.stdout.write(
            `${JSON.stringify({ mode: res.mode, ...(res.reason ? { reason: res.reason } : {}), results })}\n`,
          );
          return EXIT.ok;
        }
        if (res.reason) ctx.stderr.write(`note: keyword-only search (${res.reason})\n`);
        if (results.length === 0) ctx.stdout.write("no matches\n");
        for (const r of results) {
          ctx.stdout.write(`${r.path}:${r.startLine}-${r.endLine}  score ${r.score.toFixed(3)}\n`);
          ctx.stdout.write(
            `${r.snippet
              .split("\n")
              .slice(0, 4)
              .map((l) => `    ${l}`)
              .join("\n")}\n`,
          );
        }
        return EXIT.ok;
      }
      if (sub === "dream") {
        const { values } = parseWith(rest, JSON_ONLY);
        const report = await memory.dream();
        if (values.json) ctx.stdout.write(`${JSON.stringify(report)}\n`);
        else {
          ctx.stdout.write(
            `${report.candidates.length} candidate(s), ${report.promotedLines.length} line(s) promoted to MEMORY.md; diary in DREAMS.md\n`,
          );
        }
        return EXIT.ok;
      }
      return EXIT.ok;
    } finally {
      await memory.close();
    }
  },
};
