/**
 * A small leveled logger writing one line per event to stderr (journald picks it up).
 * Every line passes through `redact` (with the configuration's secret values) before
 * printing: secrets never reach logs. `redact` offers the same to texts that leave the
 * box another way (channel state reasons, Test answers).
 */
import { redact } from "./redact.ts";

export type LogLevel = "debug" | "info" | "warn" | "error";

const ORDER: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };
export interface Logger {
  debug(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
  child(scope: string): Logger;
  /**
   * `text` with every secret this logger hides (and `more`, e.g. values typed into a
   * request) replaced by "[redacted]", as a line would print it. For texts that leave the
   * box other than as log lines: a channel's state reason, a console Test answer.
   */
  redact(text: string, more?: readonly string[]): string;
}

export interface LoggerOptions {
  level?: LogLevel;
  scope?: string;
  write?: (line: string) => void;
  /**
   * Secret values (from `collectSecrets(config)`) hidden wherever they appear. Read on
   * every line, so values added to the array later (a secret set from the console) are
   * hidden from then on.
   */
  secrets?: readonly string[];
  /** Also receives every printed line (already redacted), e.g. the console's log ring. */
  tap?: (level: LogLevel, line: string) => void;
}

export function createLogger(options: LoggerOptions = {}): Logger {
  const min = ORDER[options.level ?? "info"];
  const write = options.write ?? ((line: string) => process.stderr.write(`${line}\n`));
  const scope = options.scope;
  const emit = (level: LogLevel, message: string, fields?: Record<string, unknown>) => {
    if (ORDER[level] < min) return;
    const secrets = options.secrets ?? [];
    const head = `${level.toUpperCase().padEnd(5)}${scope ? ` [${scope}]` : ""} ${redact(message, secrets)}`;
    const line = fields ? `${head} ${JSON.stringify(redact(fields, secrets))}` : head;
    write(line);
    options.tap?.(level, line);
  };
  return {
    debug: (m, f) => emit("debug", m, f),
    info: (m, f) => emit("info", m, f),
    warn: (m, f) => emit("warn", m, f),
    error: (m, f) => emit("error", m, f),
    child: (child) => createLogger({ ...options, scope: scope ? `${scope}:${child}` : child }),
    redact: (text, more = []) => {
      const secrets = options.secrets ?? [];
      // Longest first, so a secret that contains another is hidden whole.
      const all = more.length ? [...more, ...secrets].sort((a, b) => b.length - a.length) : secrets;
      return String(redact(text, all));
    },
  };
}

/** A logger that drops everything (tests, `--quiet`). */
export const silentLogger: Logger = createLogger({ write: () => {} });
