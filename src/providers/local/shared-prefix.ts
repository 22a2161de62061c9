/** Token lists compared from their start (KV-cache reuse keeps what two prompts share). */

/** How many tokens `a` and `b` share from their start. */
export function sharedPrefix(a: ArrayLike<number>, b: ArrayLike<number>): number {
  const n = Math.min(a.length, b.length);
  let i = 0;
  while (i < n && a[i] === b[i]) i += 1;
  return i;
}
