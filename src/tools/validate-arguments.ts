/**
 * Validates tool-call arguments against the tool's JSON Schema before `execute` runs.
 * Covers the subset tools use (type, properties, required, additionalProperties,
 * enum, const, items, min/max, minLength/maxLength, minItems/maxItems, anyOf/oneOf).
 * Unknown keywords are ignored, so an MCP server's richer schema never blocks a call.
 * Errors name the argument path so the model can correct itself.
 */
type Schema = Record<string, unknown>;

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

function typeOf(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  if (typeof value === "number") return Number.isInteger(value) ? "integer" : "number";
  return typeof value;
}

function matchesType(value: unknown, type: string): boolean {
  const actual = typeOf(value);
  if (type === "number") return actual === "number" || actual === "integer";
  return actual === type;
}

function check(value: unknown, schema: unknown, path: string, errors: string[]): void {
  if (!isObject(schema)) return;
  const where = path || "arguments";
  const type = schema.type;
  if (typeof type === "string" || Array.isArray(type)) {
    const types = (Array.isArray(type) ? type : [type]).filter(
      (t): t is string => typeof t === "string",
    );
    if (!types.some((t) => matchesType(value, t))) {
      errors.push(`${where}: expected ${types.join(" or ")}, got ${typeOf(value)}`);
      return;
    }
  }
  if (
    Array.isArray(schema.enum) &&
    !schema.enum.some((e) => JSON.stringify(e) === JSON.stringify(value))
  ) {
    errors.push(`${where}: must be one of ${schema.enum.map((e) => JSON.stringify(e)).join(", ")}`);
  }
  if ("const" in schema && JSON.stringify(schema.const) !== JSON.stringify(value)) {
    errors.push(`${where}: must be ${JSON.stringify(schema.const)}`);
  }
  for (const key of ["anyOf", "oneOf"] as const) {
    const options = schema[key];
    if (Array.isArray(options) && options.length > 0) {
      const ok = options.some((option) => {
        const sub: string[] = [];
        check(value, option, path, sub);
        return sub.length === 0;
      });
      if (!ok) errors.push(`${where}: does not match any allowed shape`);
    }
  }
  if (typeof value === "string") {
    if (typeof schema.minLength === "number" && value.length < schema.minLength) {
      errors.push(`${where}: must have at least ${schema.minLength} characters`);
    }
    if (typeof schema.maxLength === "number" && value.length > schema.maxLength) {
      errors.push(`${where}: must have at most ${schema.maxLength} characters`);
    }
  }
  if (typeof value === "number") {
    if (typeof schema.minimum === "number" && value < schema.minimum)
      errors.push(`${where}: must be ≥ ${schema.minimum}`);
    if (typeof schema.maximum === "number" && value > schema.maximum)
      errors.push(`${where}: must be ≤ ${schema.maximum}`);
  }
  if (Array.isArray(value)) {
    if (typeof schema.minItems === "number" && value.length < schema.minItems) {
      errors.push(`${where}: must have at least ${schema.minItems} items`);
    }
    if (typeof schema.maxItems === "number" && value.length > schema.maxItems) {
      errors.push(`${where}: must have at most ${schema.maxItems} items`);
    }
    for (const [i, item] of value.entries()) check(item, schema.items, `${where}[${i}]`, errors);
  }
  if (isObject(value)) {
    const properties = isObject(schema.properties) ? schema.properties : {};
    if (Array.isArray(schema.required)) {
      for (const key of schema.required) {
        if (typeof key === "string" && value[key] === undefined)
          errors.push(`${path ? `${path}.` : ""}${key}: is required`);
      }
    }
    for (const [key, item] of Object.entries(value)) {
      const sub = path ? `${path}.${key}` : key;
      if (key in properties) check(item, properties[key], sub, errors);
      else if (schema.additionalProperties === false) errors.push(`${sub}: unknown argument`);
      else if (isObject(schema.additionalProperties))
        check(item, schema.additionalProperties, sub, errors);
    }
  }
}

/** Returns the problems found (empty when valid). */
export function validateArguments(args: unknown, schema: Schema): string[] {
  const errors: string[] = [];
  check(args, { type: "object", ...schema }, "", errors);
  return errors;
}
