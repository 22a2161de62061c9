/**
 * What the memory index needs from an embedding model: a stable name and dimension
 * (a change of either forces a full re-index) and batched, L2-normalized vectors.
 */
export interface Embedder {
  readonly name: string;
  readonly dimension: number;
  /** One unit-length vector per text, in input order. */
  embed(texts: string[]): Promise<Float32Array[]>;
  close(): Promise<void>;
}
