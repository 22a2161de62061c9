/**
 * Per-provider schema normalization: each API accepts a different slice of JSON Schema.
 * Anthropic and OpenAI take most of it; OpenAI-compatible local servers and llama.cpp
 * grammars choke on `$schema`, `$id`, `format`, `default`, `examples` and unions of
 * types. Normalizing is pure: the tool's own schema is never mutated.
 */
import type { ProviderKind } from "../providers/index.ts";

type Schema = Record<string, unknown>;

const DROP_ALWAYS = new Set(["$schema", "$id", "$comment", "examples"]);
const DROP_STRICT = new Set([
  "format",
  "default",
  "pattern",
  "title",
  "deprecated",
  "readOnly",
  "writeOnly",
]);

function normalizeNode(node: unknown, strict: boolean): unknown {
  if (Array.isArray(node)) return node.map((item) => normalizeNode(item, strict));
  if (typeof node !== "object" || node === null) return node;
  const out: Schema = {};
  for (const [key, value] of Object.entries(node)) {
    if (DROP_ALWAYS.has(key) || (strict && DROP_STRICT.has(key))) continue;
    if (key === "properties" && typeof value === "object" && value !== null) {
      out[key] = Object.fromEntries(
        Object.entries(value).map(([k, v]) => [k, normalizeNode(v, strict)]),
      );
      continue;
    }
    if (strict && key === "type" && Array.isArray(value)) {
      // ["string","null"] → "string": small grammars cannot express unions of types.
      const first = value.find((t) => t !== "null");
      out[key] = first ?? "string";
      continue;
    }
    out[key] = normalizeNode(value, strict);
  }
  return out;
}

/** Returns the tool's parameter schema in the form `kind` accepts; always an object schema. */
export function normalizeSchema(schema: Schema, kind: ProviderKind): Schema {
  const strict = kind === "local";
  const out = normalizeNode(schema, strict) as Schema;
  if (out.type !== "object") out.type = "object";
  if (typeof out.properties !== "object" || out.properties === null) out.properties = {};
  return out;
}
