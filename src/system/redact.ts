/**
 * Secrets never reach logs, errors or `config show`. Three nets:
 * - by key: string values under secret-looking keys (token, secret, password, apiKey,
 *   authorization…), every value of an `env` map (MCP server environments hold tokens
 *   under any name) and every value of a `headers` map except harmless ones. Numbers and
 *   booleans are never secrets, so `maxTokens` and the other `*Tokens` counts stay.
 * - in text: bearer credentials, `sk-…` keys, URL credentials (`user:pass@`) and URL
 *   query parameters with secret-looking names (`?access_token=…`).
 * - by value: every secret found in the configuration (`collectSecrets`) is replaced
 *   wherever it appears, whatever surrounds it. It is exactly what the first net hides
 *   in the configuration (`hiddenByKey`, one rule for both), plus secret URL parameters
 *   and URL passwords, so a value `config show` hides is hidden in every log line too; only values shorter
 *   than six characters are not hunted in text (replacing "on" or "1" everywhere would
 *   wreck every line).
 */
const SECRET_KEY = /(token|secret|password|passwd|api[-_]?key|authorization|aeskey|credential)/i;
const HARMLESS_HEADERS = new Set(["content-type", "accept", "user-agent", "accept-language"]);
const SECRET_PARAM =
  /([?&](?:access_token|token|api[_-]?key|apikey|key|secret|password|auth|sig|signature|client_secret|code)=)[^&#\s"']+/gi;
/** The password of `scheme://user:password@host`. */
const URL_CREDENTIALS = /(\b[a-z][a-z0-9+.-]*:\/\/[^\s/:@"']*:)[^\s/@"']+@/gi;
const MARK = "[redacted]";
/** `tokenUrl`, `authUrl`: where a token is fetched, not a token. */
const URL_KEY = /(url|uri|endpoint)$/i;
const URL_VALUE = /^[a-z][a-z0-9+.-]*:\/\/\S+$/i;

/**
 * A URL under a secret-sounding key (`tokenUrl`) is not itself a secret: it is shown,
 * with its credentials and secret query parameters redacted as in any text.
 */
function secretKeyed(key: string, value: string): boolean {
  if (!SECRET_KEY.test(key)) return false;
  return !(URL_KEY.test(key) && URL_VALUE.test(value));
}

/** Shorter known values are not hunted in text. */
const MIN_HUNTED = 6;

function redactText(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of secrets) if (secret.length >= MIN_HUNTED) out = out.split(secret).join(MARK);
  return out
    .replace(/(Bearer|Basic|QQBot)\s+[A-Za-z0-9._~+/=-]+/g, `$1 ${MARK}`)
    .replace(/\bsk-[A-Za-z0-9_-]{8,}/g, `sk-${MARK}`)
    .replace(URL_CREDENTIALS, `$1${MARK}@`)
    .replace(SECRET_PARAM, `$1${MARK}`);
}

type Container = "env" | "headers" | undefined;

function containerOf(key: string): Container {
  const lower = key.toLowerCase();
  return lower === "env" ? "env" : lower === "headers" ? "headers" : undefined;
}

/**
 * The one rule for a string in the configuration being a secret: under a secret-looking
 * key, any value of an `env` map, any value of a `headers` map but the harmless ones.
 * `redact` hides these and `collectSecrets` hands the same values to the logger.
 */
function hiddenByKey(key: string, value: string, inside: Container): boolean {
  return (
    secretKeyed(key, value) ||
    inside === "env" ||
    (inside === "headers" && !HARMLESS_HEADERS.has(key.toLowerCase()))
  );
}

function walk(
  value: unknown,
  secrets: readonly string[],
  depth: number,
  inside: Container,
): unknown {
  if (depth > 8) return "[…]";
  if (typeof value === "string") return redactText(value, secrets);
  if (Array.isArray(value)) return value.map((v) => walk(v, secrets, depth + 1, undefined));
  if (value && typeof value === "object") {
    if (value instanceof Error) return redactText(value.message, secrets);
    const out: Record<string, unknown> = {};
    for (const [key, v] of Object.entries(value)) {
      const secretHere = typeof v === "string" && hiddenByKey(key, v, inside);
      out[key] = secretHere ? MARK : walk(v, secrets, depth + 1, containerOf(key));
    }
    return out;
  }
  return value;
}

/** A copy of `value` with secrets replaced by "[redacted]"; `secrets` are known secret values. */
export function redact(value: unknown, secrets: readonly string[] = []): unknown {
  return walk(value, secrets, 0, undefined);
}

/**
 * The secret values in a configuration object: every value `redact` hides by key (the
 * same `hiddenByKey` rule: provider and MCP `headers`, MCP `env`, keys, tokens,
 * passwords), plus the secret URL query values and URL passwords it hides in text. Give them to the logger so they are hidden
 * anywhere, and to whatever turns a failure into text a client reads.
 */
export function collectSecrets(value: unknown): string[] {
  const found = new Set<string>();
  const visit = (v: unknown, key: string, inside: Container, depth: number) => {
    if (depth > 8) return;
    if (typeof v === "string") {
      if (hiddenByKey(key, v, inside) && v.length >= MIN_HUNTED) found.add(v);
      for (const match of [...v.matchAll(SECRET_PARAM), ...v.matchAll(URL_CREDENTIALS)]) {
        const secret = match[0].slice(match[1]?.length ?? 0).replace(/@$/, "");
        if (secret.length >= MIN_HUNTED) found.add(secret);
      }
      return;
    }
    if (Array.isArray(v)) for (const item of v) visit(item, key, undefined, depth + 1);
    else if (v && typeof v === "object")
      for (const [k, item] of Object.entries(v)) visit(item, k, containerOf(key), depth + 1);
  };
  visit(value, "", undefined, 0);
  return [...found].sort((a, b) => b.length - a.length);
}
