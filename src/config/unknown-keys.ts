/**
 * Finds keys in a raw config object that the schema does not know. They are warned
 * about, not rejected, so a config written for a newer clawbox still starts.
 */
import type { z } from "../schema/index.ts";

type AnySchema = z.core.$ZodType;

function unwrap(schema: AnySchema): AnySchema {
  let current: AnySchema = schema;
  for (let i = 0; i < 10; i++) {
    const def = current._zod.def as { type: string; innerType?: AnySchema };
    if (
      (def.type === "optional" ||
        def.type === "default" ||
        def.type === "nullable" ||
        def.type === "prefault" ||
        def.type === "catch" ||
        def.type === "readonly") &&
      def.innerType
    ) {
      current = def.innerType;
      continue;
    }
    break;
  }
  return current;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** A key the schema does not know, with the keys it knows at that place (for "did you mean"). */
export interface UnknownKey {
  path: string;
  known: string[];
}

/** Dotted paths of keys present in `raw` but absent from `schema`. */
export function findUnknownKeys(schema: AnySchema, raw: unknown, prefix = ""): UnknownKey[] {
  const inner = unwrap(schema);
  const def = inner._zod.def as {
    type: string;
    shape?: Record<string, AnySchema>;
    valueType?: AnySchema;
    element?: AnySchema;
    options?: AnySchema[];
    discriminator?: string;
  };
  const out: UnknownKey[] = [];
  if (def.type === "object" && def.shape && isPlainObject(raw)) {
    for (const [key, value] of Object.entries(raw)) {
      const path = prefix ? `${prefix}.${key}` : key;
      // Own keys only: `toString`, `constructor`, `__proto__`… are unknown keys like any other.
      const child = Object.hasOwn(def.shape, key) ? def.shape[key] : undefined;
      if (!child) out.push({ path, known: Object.keys(def.shape) });
      else out.push(...findUnknownKeys(child, value, path));
    }
  } else if (def.type === "record" && def.valueType && isPlainObject(raw)) {
    for (const [key, value] of Object.entries(raw)) {
      out.push(...findUnknownKeys(def.valueType, value, prefix ? `${prefix}.${key}` : key));
    }
  } else if (def.type === "array" && def.element && Array.isArray(raw)) {
    raw.forEach((item, i) => {
      out.push(...findUnknownKeys(def.element as AnySchema, item, `${prefix}.${i}`));
    });
  } else if (def.type === "union" && def.options && isPlainObject(raw)) {
    const disc = def.discriminator;
    const match = def.options.find((option) => {
      const shape = (unwrap(option)._zod.def as { shape?: Record<string, AnySchema> }).shape;
      if (!shape) return false;
      if (disc && disc in raw) {
        const literal = shape[disc]?._zod.def as { values?: unknown[] } | undefined;
        return literal?.values?.includes(raw[disc]) ?? false;
      }
      return true;
    });
    if (match) out.push(...findUnknownKeys(match, raw, prefix));
  }
  return out;
}
