/**
 * Per-provider tool-schema normalization. Providers accept different JSON-Schema
 * subsets: some reject `$schema`/`$id`, llama-server's grammar converter and Ollama
 * choke on `format`, `patternProperties`, conditional keywords; several want `enum`
 * instead of `const`. Normalizing here keeps tool authors writing plain JSON Schema.
 */
export type SchemaDialect = "openai" | "anthropic" | "qwen" | "minimax" | "ollama" | "llama-server";

const ALWAYS_DROP = ["$schema", "$id", "$comment", "examples"];
/** Keywords the grammar converters of small servers and Chinese APIs reject. */
const UNSUPPORTED_KEYWORDS = ["format", "patternProperties", "if", "then", "else", "not"];
const DROP: Record<SchemaDialect, string[]> = {
  openai: [],
  anthropic: [],
  qwen: ["default", ...UNSUPPORTED_KEYWORDS],
  minimax: ["default", ...UNSUPPORTED_KEYWORDS],
  ollama: ["default", ...UNSUPPORTED_KEYWORDS, "additionalProperties"],
  "llama-server": [...UNSUPPORTED_KEYWORDS, "dependentRequired", "dependentSchemas"],
};
const CONST_TO_ENUM = new Set<SchemaDialect>(["qwen", "minimax", "ollama"]);

/** A copy of `schema` in the subset `dialect` accepts; the top level is always an object schema. */
export function normalizeToolSchema(
  schema: Record<string, unknown>,
  dialect: SchemaDialect,
): Record<string, unknown> {
  const drop = new Set([...ALWAYS_DROP, ...DROP[dialect]]);
  const out = normalizeNode(schema, drop, CONST_TO_ENUM.has(dialect));
  const top = isRecord(out) ? out : {};
  if (top.type === undefined) top.type = "object";
  if (top.type === "object" && !isRecord(top.properties)) top.properties = {};
  return top;
}

/** Guesses the dialect of an OpenAI-compatible endpoint from its base URL. */
export function dialectForBaseUrl(baseUrl: string): SchemaDialect {
  const url = baseUrl.toLowerCase();
  if (url.includes("dashscope") || url.includes("aliyuncs")) return "qwen";
  if (url.includes("minimax")) return "minimax";
  if (url.includes(":11434") || url.includes("ollama")) return "ollama";
  if (url.includes(":8080") || url.includes("llama")) return "llama-server";
  return "openai";
}

function normalizeNode(node: unknown, drop: Set<string>, constToEnum: boolean): unknown {
  if (Array.isArray(node)) return node.map((item) => normalizeNode(item, drop, constToEnum));
  if (!isRecord(node)) return node;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) {
    if (drop.has(key)) continue;
    if (key === "const" && constToEnum) {
      out.enum = [value];
      continue;
    }
    // Property names and enum values are data, not schema: copy them as they are.
    if (key === "properties" && isRecord(value)) {
      out.properties = Object.fromEntries(
        Object.entries(value).map(([name, sub]) => [name, normalizeNode(sub, drop, constToEnum)]),
      );
    } else if (key === "enum" || key === "required" || key === "default") {
      out[key] = value;
    } else {
      out[key] = normalizeNode(value, drop, constToEnum);
    }
  }
  return out;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
