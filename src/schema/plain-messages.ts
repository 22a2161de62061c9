/**
 * Schema messages in plain words, written to follow the name of what is wrong:
 * "port must be a number", "host is missing", "name must not be empty". Every schema
 * in src/ reports through these (config load errors, TOOLS.md entries, manifests,
 * payloads), so people never read "Invalid input: expected number, received NaN".
 * A check's own message (`z.regex(re, "must be …")`) is kept as written.
 */

/** The fields of a raw zod issue these messages read (src/schema/index.ts passes them in). */
export interface RawIssue {
  code?: string;
  input?: unknown;
  expected?: string;
  values?: readonly unknown[];
  minimum?: unknown;
  maximum?: unknown;
  origin?: string;
  exact?: boolean;
  inclusive?: boolean;
  format?: string;
  pattern?: unknown;
  prefix?: string;
  suffix?: string;
  divisor?: unknown;
  keys?: readonly string[];
}

const ARTICLE_AN = new Set(["array", "object", "integer", "int", "email address"]);

/** "a number", "an array", "a whole number", "null". */
function kind(type: string): string {
  if (type === "int" || type === "integer") return "a whole number";
  if (type === "null" || type === "undefined" || type === "NaN" || type === "nan") return type;
  return `${ARTICLE_AN.has(type) ? "an" : "a"} ${type}`;
}

function typeOf(input: unknown): string {
  if (input === null) return "null";
  if (Array.isArray(input)) return "array";
  if (typeof input === "number" && Number.isNaN(input)) return "NaN";
  return typeof input;
}

const UNITS: Record<string, string> = {
  string: "characters",
  array: "items",
  set: "items",
  map: "entries",
  file: "bytes",
};

function bound(issue: RawIssue): string {
  const small = issue.code === "too_small";
  const limit = String(small ? issue.minimum : issue.maximum);
  const unit = UNITS[String(issue.origin)];
  if (unit) {
    if (small && limit === "1" && issue.origin === "string") return "must not be empty";
    if (small && limit === "1") return `must have at least one of its ${unit}`;
    if (issue.exact) return `must have exactly ${limit} ${unit}`;
    return `must have at ${small ? "least" : "most"} ${limit} ${unit}`;
  }
  if (issue.exact) return `must be exactly ${limit}`;
  if (issue.inclusive === false) return `must be ${small ? "more" : "less"} than ${limit}`;
  return `must be at ${small ? "least" : "most"} ${limit}`;
}

function format(f: RawIssue): string {
  if (f.format === "regex") return `must match ${String(f.pattern)}`;
  if (f.format === "starts_with") return `must start with "${f.prefix}"`;
  if (f.format === "ends_with") return `must end with "${f.suffix}"`;
  return `must be a valid ${f.format === "url" ? "URL" : f.format}`;
}

/** The message for `issue`, or undefined to leave it to zod's English locale. */
export function plainMessage(issue: RawIssue): string | undefined {
  switch (issue.code) {
    case "invalid_type": {
      if (issue.input === undefined) return "is missing";
      const received = typeOf(issue.input);
      if (issue.expected === "number" && received === "NaN") return "must be a number";
      return `must be ${kind(String(issue.expected))}, not ${kind(received)}`;
    }
    case "invalid_value": {
      const values = issue.values ?? [];
      if (values.length === 1) return `must be ${JSON.stringify(values[0])}`;
      return `must be one of ${values.map((v) => JSON.stringify(v)).join(", ")}`;
    }
    case "too_small":
    case "too_big":
      return bound(issue);
    case "invalid_format":
      return format(issue);
    case "not_multiple_of":
      return `must be a multiple of ${String(issue.divisor)}`;
    case "unrecognized_keys":
      return `has unknown key${(issue.keys?.length ?? 0) > 1 ? "s" : ""} ${(issue.keys ?? []).join(", ")}`;
    case "invalid_union":
      return "does not match any of the allowed forms";
    default:
      return undefined;
  }
}
