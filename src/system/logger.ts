/**
 * A small leveled logger writing one line per event to stderr (journald picks it up).
 * Values under secret-looking keys and bearer tokens are redacted before printing:
 * secrets never reach logs.
 */
export type LogLevel = "debug" | "info" | "warn" | "error";

const ORDER: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };
const SECRET_KEY = /(token|secret|password|api[-_]?key|authorization|aeskey)/i;

export function redact(value: unknown, depth = 0): unknown {
  if (depth > 6) return "[…]";
  if (typeof value === "string") {
    return value
      .replace(/(Bearer|QQBot)\s+[A-Za-z0-9._~+/=-]+/g, "$1 [redacted]")
      .replace(/\bsk-[A-Za-z0-9_-]{8,}/g, "sk-[redacted]");
  }
  if (Array.isArray(value)) return value.map((v) => redact(v, depth + 1));
  if (value && typeof value === "object") {
    if (value instanceof Error) return redact(value.message, depth + 1);
    const out: Record<string, unknown> = {};
    for (const [key, v] of Object.entries(value)) {
      out[key] = SECRET_KEY.test(key) && v !== undefined ? "[redacted]" : redact(v, depth + 1);
    }
    return out;
  }
  return value;
}

export interface Logger {
  debug(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
  child(scope: string): Logger;
}

export interface LoggerOptions {
  level?: LogLevel;
  scope?: string;
  write?: (line: string) => void;
}

export function createLogger(options: LoggerOptions = {}): Logger {
  const min = ORDER[options.level ?? "info"];
  const write = options.write ?? ((line: string) => process.stderr.write(`${line}\n`));
  const scope = options.scope;
  const emit = (level: LogLevel, message: string, fields?: Record<string, unknown>) => {
    if (ORDER[level] < min) return;
    const head = `${level.toUpperCase().padEnd(5)}${scope ? ` [${scope}]` : ""} ${redact(message)}`;
    write(fields ? `${head} ${JSON.stringify(redact(fields))}` : head);
  };
  return {
    debug: (m, f) => emit("debug", m, f),
    info: (m, f) => emit("info", m, f),
    warn: (m, f) => emit("warn", m, f),
    error: (m, f) => emit("error", m, f),
    child: (child) => createLogger({ ...options, scope: scope ? `${scope}:${child}` : child }),
  };
}

/** A logger that drops everything (tests, `--quiet`). */
export const silentLogger: Logger = createLogger({ write: () => {} });
