/**
 * The service's recent log lines, in memory, for the console's Logs page: what
 * `journalctl -u clawbox` shows for the last minutes. Bounded by line count and by bytes
 * (the oldest lines go first), so a chatty error loop cannot grow the heap. Lines arrive
 * already redacted by the logger.
 */
import type { LogLevel } from "./logger.ts";

export interface LogEntry {
  /** ms since epoch */
  at: number;
  level: LogLevel;
  line: string;
}

const ORDER: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };
/** A line longer than this is cut (a stack or a dumped body). */
const MAX_LINE_CHARS = 4000;

export class LogRing {
  private readonly lines: LogEntry[] = [];
  private bytes = 0;

  constructor(
    readonly maxLines = 1000,
    readonly maxBytes = 512 * 1024,
    private readonly now: () => number = Date.now,
  ) {}

  push(level: LogLevel, line: string): void {
    const text = line.length > MAX_LINE_CHARS ? `${line.slice(0, MAX_LINE_CHARS)}…` : line;
    this.lines.push({ at: this.now(), level, line: text });
    this.bytes += text.length;
    while (this.lines.length > this.maxLines || this.bytes > this.maxBytes) {
      const dropped = this.lines.shift();
      if (!dropped) break;
      this.bytes -= dropped.line.length;
    }
  }

  /** Lines at `minLevel` or above, oldest first, at most `limit` of the newest. */
  entries(minLevel: LogLevel = "debug", limit = this.maxLines): LogEntry[] {
    const floor = ORDER[minLevel];
    const kept = this.lines.filter((e) => ORDER[e.level] >= floor);
    return kept.slice(Math.max(0, kept.length - limit));
  }

  get size(): number {
    return this.lines.length;
  }
}
