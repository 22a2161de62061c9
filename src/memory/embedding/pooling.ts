/**
 * Turns a model's token vectors into one sentence vector: CLS (first token, as the bge
 * family wants) or mean over the tokens the attention mask keeps (sentence-transformers
 * models), then L2 normalization so cosine similarity is a dot product.
 */
export type Pooling = "cls" | "mean";

/**
 * Pools row `b` of a [batch, seq, dim] tensor laid out row-major in `hidden`.
 * `mask` is the [batch, seq] attention mask (1 = real token).
 */
export function poolRow(
  hidden: Float32Array,
  mask: ArrayLike<bigint | number>,
  b: number,
  seq: number,
  dim: number,
  pooling: Pooling,
): Float32Array {
  const out = new Float32Array(dim);
  const base = b * seq * dim;
  if (pooling === "cls") {
    out.set(hidden.subarray(base, base + dim));
    return out;
  }
  let count = 0;
  for (let t = 0; t < seq; t++) {
    if (Number(mask[b * seq + t] ?? 0) === 0) continue;
    count++;
    const off = base + t * dim;
    for (let d = 0; d < dim; d++) out[d] = (out[d] ?? 0) + (hidden[off + d] ?? 0);
  }
  if (count > 0) for (let d = 0; d < dim; d++) out[d] = (out[d] ?? 0) / count;
  return out;
}

/** Scales `v` to unit length in place (a zero vector stays zero). */
export function l2Normalize(v: Float32Array): Float32Array {
  let sum = 0;
  for (const x of v) sum += x * x;
  const norm = Math.sqrt(sum);
  if (norm > 0) for (let i = 0; i < v.length; i++) v[i] = (v[i] ?? 0) / norm;
  return v;
}

export function dot(a: Float32Array, b: Float32Array): number {
  let s = 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) s += (a[i] ?? 0) * (b[i] ?? 0);
  return s;
}
