/**
 * The word a typo was probably meant to be ("sesions" → "sessions", "prot" → "port",
 * "--jsn" → "--json"), for "did you mean …?" hints in the CLI and the config checker.
 * Optimal string alignment distance (a swap of two neighbours is one edit), case
 * folded; a candidate counts only when close for its length (at most 1 edit up to 4
 * letters, 2 up to 8, 3 beyond), so an unrelated word gets no suggestion.
 */

function distance(a: string, b: string): number {
  const rows = a.length + 1;
  const cols = b.length + 1;
  const d: number[][] = Array.from({ length: rows }, (_, i) =>
    Array.from({ length: cols }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  for (let i = 1; i < rows; i++) {
    for (let j = 1; j < cols; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      const row = d[i] as number[];
      const above = d[i - 1] as number[];
      let best = Math.min(
        (above[j] as number) + 1,
        (row[j - 1] as number) + 1,
        (above[j - 1] as number) + cost,
      );
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        best = Math.min(best, ((d[i - 2] as number[])[j - 2] as number) + 1);
      row[j] = best;
    }
  }
  return (d[a.length] as number[])[b.length] as number;
}

/** The candidate closest to `word`, when one is close enough; undefined otherwise. */
export function nearestWord(word: string, candidates: Iterable<string>): string | undefined {
  const typed = word.toLowerCase();
  if (typed.length === 0) return undefined;
  let best: string | undefined;
  let bestDistance = Number.POSITIVE_INFINITY;
  for (const candidate of candidates) {
    const d = distance(typed, candidate.toLowerCase());
    const allowed = candidate.length <= 4 ? 1 : candidate.length <= 8 ? 2 : 3;
    if (d > 0 && d <= allowed && d < bestDistance) {
      best = candidate;
      bestDistance = d;
    }
  }
  return best;
}
