/**
 * Splits a markdown file into overlapping chunks (~400 tokens, 80 overlap) for the
 * index. Markdown-aware: a heading starts a new chunk when the current one already has
 * some content, and lines inside fenced code blocks never count as headings. Every
 * chunk keeps its 1-based line range (for `memory_get`) and a content hash; its id is
 * derived from the file path and that hash, so ids stay stable when lines shift.
 */
import { createHash } from "node:crypto";

export interface Chunk {
  id: string;
  startLine: number;
  endLine: number;
  text: string;
  /** sha256 of `text`: the embedding-cache key. */
  hash: string;
  tokens: number;
}

export interface ChunkOptions {
  tokens: number;
  overlap: number;
}

const CJK =
  /[\u3000-\u303f\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff\uff00-\uffef]/g;

/** Rough token count: one per CJK character, one per ~4 other characters. */
export function estimateTokens(text: string): number {
  const cjk = text.match(CJK)?.length ?? 0;
  return cjk + Math.ceil((text.length - cjk) / 4);
}

export function sha256Hex(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}

interface Line {
  no: number;
  text: string;
  tokens: number;
  heading: boolean;
}

function toLines(content: string, maxTokens: number): Line[] {
  const out: Line[] = [];
  let fence: string | undefined;
  content.split("\n").forEach((raw, index) => {
    const text = raw.endsWith("\r") ? raw.slice(0, -1) : raw;
    const fenceMatch = /^\s*(```|~~~)/.exec(text);
    if (fenceMatch?.[1])
      fence = fence === undefined ? fenceMatch[1] : fence === fenceMatch[1] ? undefined : fence;
    const heading = fence === undefined && /^#{1,6}\s/.test(text);
    const tokens = estimateTokens(text) + 1;
    if (tokens <= maxTokens) {
      out.push({ no: index + 1, text, tokens, heading });
      return;
    }
    // A very long line (pasted log, minified text): split it, same line number.
    const step = Math.max(1, Math.floor((text.length * maxTokens) / tokens));
    for (let i = 0; i < text.length; i += step) {
      const piece = text.slice(i, i + step);
      out.push({
        no: index + 1,
        text: piece,
        tokens: estimateTokens(piece),
        heading: heading && i === 0,
      });
    }
  });
  return out;
}

export function chunkMarkdown(path: string, content: string, options: ChunkOptions): Chunk[] {
  const max = Math.max(16, options.tokens);
  const overlap = Math.min(options.overlap, Math.floor(max / 2));
  const lines = toLines(content, max);
  const groups: Line[][] = [];
  let current: Line[] = [];
  let size = 0;
  const flush = (withOverlap: boolean) => {
    if (current.some((l) => l.text.trim() !== "")) groups.push(current);
    const carried: Line[] = [];
    let carriedSize = 0;
    if (withOverlap) {
      for (let i = current.length - 1; i > 0; i--) {
        const line = current[i];
        if (!line || carriedSize + line.tokens > overlap) break;
        carried.unshift(line);
        carriedSize += line.tokens;
      }
    }
    current = carried;
    size = carriedSize;
  };
  for (const line of lines) {
    if (line.heading && size >= max / 4) flush(false);
    else if (size + line.tokens > max && current.length > 0) flush(true);
    current.push(line);
    size += line.tokens;
  }
  flush(false);

  const seen = new Map<string, number>();
  return groups.map((untrimmed) => {
    // Blank lines at the edges carry no meaning; dropping them keeps ids stable.
    let from = 0;
    let to = untrimmed.length;
    while (from < to && untrimmed[from]?.text.trim() === "") from++;
    while (to > from && untrimmed[to - 1]?.text.trim() === "") to--;
    const group = untrimmed.slice(from, to);
    const text = group.map((l) => l.text).join("\n");
    const hash = sha256Hex(text);
    const occurrence = seen.get(hash) ?? 0;
    seen.set(hash, occurrence + 1);
    const first = group[0];
    const last = group[group.length - 1];
    return {
      id: sha256Hex(`${path}\n${hash}\n${occurrence}`).slice(0, 24),
      startLine: first?.no ?? 1,
      endLine: last?.no ?? 1,
      text,
      hash,
      tokens: estimateTokens(text),
    };
  });
}
