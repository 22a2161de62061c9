/**
 * Truncation of an injected bootstrap file: keep the head 70% and the tail 20% of the
 * budget, with a marker naming the file and the kept/total characters and pointing the
 * model at the full file. The result never exceeds the budget. Files on disk are never
 * touched; only the injected copy is shortened.
 */
export interface TruncatedText {
  text: string;
  truncated: boolean;
}

export function truncationMarker(name: string, kept: number, total: number): string {
  return `\n\n[… ${name} truncated: kept ${kept} of ${total} chars; read the full file with the read tool …]\n\n`;
}

export function truncateBootstrap(name: string, text: string, budget: number): TruncatedText {
  if (text.length <= budget) return { text, truncated: false };
  if (budget <= 0) return { text: "", truncated: true };
  let head = Math.floor(budget * 0.7);
  let tail = Math.floor(budget * 0.2);
  let marker = truncationMarker(name, head + tail, text.length);
  // Small budgets: shrink head and tail (70:20) until the marker fits too.
  while (head + tail + marker.length > budget && head + tail > 0) {
    const excess = head + tail + marker.length - budget;
    const cutTail = Math.min(tail, Math.ceil((excess * 2) / 9));
    tail -= cutTail;
    head = Math.max(0, head - (excess - cutTail));
    marker = truncationMarker(name, head + tail, text.length);
  }
  if (head + tail + marker.length > budget)
    return { text: marker.trim().slice(0, budget), truncated: true };
  return { text: text.slice(0, head) + marker + text.slice(text.length - tail), truncated: true };
}
