/**
 * The JSON reply format of a local model when tools are offered: one object that is
 * either a tool call or a text answer. The schema is turned into a llama.cpp grammar,
 * so even a model with random weights emits something that parses. Tool parameter
 * schemas are narrowed to the JSON-Schema subset node-llama-cpp's grammar supports, and
 * every argument string is length-bounded so a babbling model still completes its call
 * (the text answer is bounded by the token budget only).
 */
import type { ToolDefinition } from "../provider.ts";

export type JsonSchema = Record<string, unknown>;

export interface ReplySchemaOptions {
  /** "required": a tool call is the only allowed reply. */
  toolChoice: "auto" | "required";
  /** Bound on every string inside tool arguments (llama.cpp limits repetition counts). */
  maxArgChars: number;
}

/** Union schema `{type:"toolCall",name,arguments} | {type:"text",text}`. */
export function replySchema(tools: ToolDefinition[], options: ReplySchemaOptions): JsonSchema {
  const variants: JsonSchema[] = tools.map((tool) => ({
    type: "object",
    properties: {
      type: { const: "toolCall" },
      name: { const: tool.name },
      arguments: toGrammarSchema(tool.parameters, options.maxArgChars, 0),
    },
    required: ["type", "name", "arguments"],
    additionalProperties: false,
  }));
  if (options.toolChoice === "auto" || variants.length === 0) {
    variants.push({
      type: "object",
      properties: { type: { const: "text" }, text: { type: "string" } },
      required: ["type", "text"],
      additionalProperties: false,
    });
  }
  return variants.length === 1 && variants[0] ? variants[0] : { oneOf: variants };
}

const SCALAR_TYPES = new Set(["string", "number", "integer", "boolean", "null"]);

/** Narrows a JSON Schema to what the grammar generator supports; unknown shapes become any scalar. */
export function toGrammarSchema(schema: unknown, maxChars: number, depth: number): JsonSchema {
  const anyScalar: JsonSchema = { type: ["string", "number", "boolean", "null"] };
  if (!isRecord(schema) || depth > 6) return anyScalar;
  if ("const" in schema) return { const: scalarOr(schema.const, null) };
  if (Array.isArray(schema.enum) && schema.enum.length > 0) {
    return { enum: schema.enum.map((value) => scalarOr(value, String(value))) };
  }
  const union = Array.isArray(schema.oneOf)
    ? schema.oneOf
    : Array.isArray(schema.anyOf)
      ? schema.anyOf
      : undefined;
  if (union && union.length > 0)
    return { oneOf: union.map((entry) => toGrammarSchema(entry, maxChars, depth + 1)) };
  const type = Array.isArray(schema.type)
    ? schema.type.find((t) => typeof t === "string" && t !== "null")
    : schema.type;
  if (type === "object" || (type === undefined && isRecord(schema.properties))) {
    const properties = isRecord(schema.properties) ? schema.properties : {};
    const out: Record<string, JsonSchema> = {};
    for (const [key, value] of Object.entries(properties))
      out[key] = toGrammarSchema(value, maxChars, depth + 1);
    const required = Array.isArray(schema.required)
      ? schema.required.filter((key): key is string => typeof key === "string" && key in out)
      : [];
    return { type: "object", properties: out, required, additionalProperties: false };
  }
  if (type === "array") {
    return {
      type: "array",
      items: toGrammarSchema(schema.items, maxChars, depth + 1),
      maxItems: numberOr(schema.maxItems, 16),
    };
  }
  if (type === "string") {
    return { type: "string", maxLength: Math.min(numberOr(schema.maxLength, maxChars), maxChars) };
  }
  if (typeof type === "string" && SCALAR_TYPES.has(type)) return { type };
  return anyScalar;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function scalarOr(value: unknown, fallback: string | null): string | number | boolean | null {
  return typeof value === "string" ||
    typeof value === "number" ||
    typeof value === "boolean" ||
    value === null
    ? value
    : fallback;
}

function numberOr(value: unknown, fallback: number): number {
  return typeof value === "number" && Number.isFinite(value) ? value : fallback;
}
