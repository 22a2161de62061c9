/**
 * Optional re-ranking steps of memory search. Temporal decay lowers the score of dated
 * daily notes by age (MEMORY.md is curated and never decays). MMR (maximal marginal
 * relevance) trades a little relevance for variety so six near-identical chunks do not
 * crowd out the one different answer.
 */

export interface Rankable {
  score: number;
  noteDate: string | null;
  /** Unit vector when the model is present (cosine similarity between results). */
  vector: Float32Array | undefined;
  text: string;
}

export function decayFactor(noteDate: string | null, halfLifeDays: number, now: number): number {
  if (!noteDate) return 1;
  const t = Date.parse(`${noteDate}T00:00:00Z`);
  if (Number.isNaN(t)) return 1;
  const ageDays = Math.max(0, (now - t) / 86_400_000);
  return 0.5 ** (ageDays / halfLifeDays);
}

function wordSet(text: string): Set<string> {
  return new Set(
    text
      .toLowerCase()
      .split(/[\s\p{P}]+/u)
      .filter(Boolean),
  );
}

function similarity(a: Rankable, b: Rankable): number {
  if (a.vector && b.vector) {
    let s = 0;
    for (let i = 0; i < a.vector.length; i++) s += (a.vector[i] ?? 0) * (b.vector[i] ?? 0);
    return s;
  }
  const wa = wordSet(a.text);
  const wb = wordSet(b.text);
  let common = 0;
  for (const w of wa) if (wb.has(w)) common++;
  const union = wa.size + wb.size - common;
  return union === 0 ? 0 : common / union;
}

/** Picks `k` items by MMR; `lambda` 1 = pure relevance, 0 = pure diversity. */
export function mmrSelect<T extends Rankable>(items: T[], k: number, lambda: number): T[] {
  const pool = [...items].sort((a, b) => b.score - a.score);
  const chosen: T[] = [];
  while (chosen.length < k && pool.length > 0) {
    let bestIndex = 0;
    let bestValue = Number.NEGATIVE_INFINITY;
    pool.forEach((item, i) => {
      const maxSim = chosen.length === 0 ? 0 : Math.max(...chosen.map((c) => similarity(item, c)));
      const value = lambda * item.score - (1 - lambda) * maxSim;
      if (value > bestValue) {
        bestValue = value;
        bestIndex = i;
      }
    });
    const [picked] = pool.splice(bestIndex, 1);
    if (picked) chosen.push(picked);
  }
  return chosen;
}
