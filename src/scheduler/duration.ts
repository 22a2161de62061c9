/**
 * Durations as people write them: "20 minutes", "1h30m", "90s", "2 days", "1.5h".
 * Used by `every` schedules, relative `at` ("in 20 minutes") and the config
 * (`heartbeat.every`, `cron.catchUp`).
 */
import { ClawboxError } from "../errors/index.ts";

const UNIT_MS: Record<string, number> = {
  ms: 1,
  s: 1000,
  sec: 1000,
  secs: 1000,
  second: 1000,
  seconds: 1000,
  m: 60_000,
  min: 60_000,
  mins: 60_000,
  minute: 60_000,
  minutes: 60_000,
  h: 3_600_000,
  hr: 3_600_000,
  hrs: 3_600_000,
  hour: 3_600_000,
  hours: 3_600_000,
  d: 86_400_000,
  day: 86_400_000,
  days: 86_400_000,
  w: 604_800_000,
  week: 604_800_000,
  weeks: 604_800_000,
};

/** Milliseconds in `text`; a bare number is minutes. Throws TOOL_INVALID_ARGS on nonsense. */
export function parseDuration(text: string, where = "duration"): number {
  const source = text
    .trim()
    .toLowerCase()
    .replace(/\band\b|,/g, " ");
  if (/^\d+(\.\d+)?$/.test(source)) return Math.round(Number(source) * 60_000);
  const part = /(\d+(?:\.\d+)?)\s*([a-z]+)/g;
  let total = 0;
  let consumed = "";
  for (const match of source.matchAll(part)) {
    const unit = UNIT_MS[match[2] ?? ""];
    if (unit === undefined) break;
    total += Number(match[1]) * unit;
    consumed += match[0];
  }
  if (total <= 0 || consumed.replace(/\s/g, "") !== source.replace(/\s/g, ""))
    throw new ClawboxError("TOOL_INVALID_ARGS", `${where}: not a duration: "${text}"`, {
      hint: 'write e.g. "20 minutes", "1h30m", "90s" or "2 days"',
    });
  return Math.round(total);
}

/** "1 h 30 min" style, for listings. */
export function formatDuration(ms: number): string {
  const parts: string[] = [];
  let rest = Math.round(ms / 1000);
  for (const [unit, size] of [
    ["d", 86400],
    ["h", 3600],
    ["min", 60],
    ["s", 1],
  ] as const) {
    const n = Math.floor(rest / size);
    if (n > 0) parts.push(`${n} ${unit}`);
    rest -= n * size;
  }
  return parts.join(" ") || "0 s";
}
