/**
 * A token estimator for when no tokenizer is at hand. chars/4 undercounts Chinese
 * badly, so text is split into runs by script: Han characters, kana and hangul, CJK
 * punctuation, ASCII words, digits (SentencePiece llama vocabularies split every digit),
 * punctuation, newlines, and other characters by UTF-8 bytes (byte fallback).
 * Calibrated against the llama SentencePiece vocabulary (scripts/bench/context.ts
 * measures the error); callers add the 1.2 safety margin through `TokenCounter`.
 */
const HAN_TOKENS = 1.45;
const KANA_HANGUL_TOKENS = 1.5;
const CJK_PUNCT_TOKENS = 1;
const CHARS_PER_WORD_TOKEN = 4.2;

// One code point of each class, tested in place (sticky): no match objects, so counting a
// long history every turn makes no garbage (docs/BENCHMARKS.md, rss-after-use).
const HAN = /\p{Script=Han}/uy;
const KANA_HANGUL = /[\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/uy;

const isAsciiLetter = (c: number) => (c >= 65 && c <= 90) || (c >= 97 && c <= 122);
const isCjkPunct = (c: number) => (c >= 0x3000 && c <= 0x303f) || (c >= 0xff00 && c <= 0xffef);

function matchesAt(re: RegExp, text: string, at: number): boolean {
  re.lastIndex = at;
  return re.test(text);
}

/** UTF-8 bytes of a code point starting with unit `c` (a lone surrogate is encoded as U+FFFD, 3 bytes). */
function utf8Bytes(c: number, paired: boolean): number {
  if (paired) return 4;
  if (c < 0x80) return 1;
  if (c < 0x800) return 2;
  return 3;
}

/**
 * Scans code points in order: ASCII word runs, digits, newlines and space runs,
 * punctuation, then per code point Han, kana and hangul, CJK punctuation, and the
 * UTF-8 byte count of anything else (at most 4).
 */
export function estimateTextTokens(text: string): number {
  let total = 0;
  const n = text.length;
  let i = 0;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c < 0x80) {
      if (isAsciiLetter(c)) {
        let end = i + 1;
        while (end < n && isAsciiLetter(text.charCodeAt(end))) end++;
        total += Math.max(1, Math.round((end - i) / CHARS_PER_WORD_TOKEN));
        i = end;
      } else if (c === 32 || c === 9) {
        let end = i + 1;
        while (end < n && (text.charCodeAt(end) === 32 || text.charCodeAt(end) === 9)) end++;
        total += end - i > 1 ? end - i - 1 : 0;
        i = end;
      } else {
        // A digit, a newline, punctuation or another ASCII character: one token each.
        total += 1;
        i++;
      }
      continue;
    }
    const next = i + 1 < n ? text.charCodeAt(i + 1) : 0;
    const paired = c >= 0xd800 && c <= 0xdbff && next >= 0xdc00 && next <= 0xdfff;
    if (matchesAt(HAN, text, i)) total += HAN_TOKENS;
    else if (matchesAt(KANA_HANGUL, text, i)) total += KANA_HANGUL_TOKENS;
    else if (isCjkPunct(c)) total += CJK_PUNCT_TOKENS;
    else total += Math.min(4, utf8Bytes(c, paired));
    i += paired ? 2 : 1;
  }
  return Math.ceil(total);
}

/** Tokens an image costs in the prompt (max dimension 1200 px after resizing). */
export const IMAGE_TOKENS = 1200;

/** Per-message overhead of chat templates (role markers, separators). */
export const MESSAGE_OVERHEAD_TOKENS = 4;

/** Safety margin applied to estimates (never to exact counts). */
export const ESTIMATE_SAFETY_MARGIN = 1.2;
