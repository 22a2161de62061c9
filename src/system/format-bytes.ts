/**
 * The one way clawbox writes a size for people: decimal units (kB, MB, GB, as the model
 * manifest and Hugging Face state them) with three significant digits, so one file reads
 * the same in `models list`, a pull's progress and result, `doctor`, the recommendation
 * and the console.
 */
const UNITS = ["B", "kB", "MB", "GB", "TB"] as const;

/** 1185376 → "1.19 MB", 639446688 → "639 MB", 512 → "512 B". */
export function formatBytes(bytes: number): string {
  if (!Number.isFinite(bytes) || bytes < 0) return "?";
  if (bytes < 1000) return `${Math.round(bytes)} B`;
  let unit = Math.min(UNITS.length - 1, Math.floor(Math.log10(bytes) / 3));
  let value = Number((bytes / 1000 ** unit).toPrecision(3));
  if (value >= 1000 && unit < UNITS.length - 1) {
    unit += 1;
    value = Number((bytes / 1000 ** unit).toPrecision(3));
  }
  return `${value} ${UNITS[unit]}`;
}
