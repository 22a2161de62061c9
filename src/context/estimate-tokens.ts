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

const RUN =
  /(\p{Script=Han})|([\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}])|([\u3000-\u303f\uff00-\uffef])|([A-Za-z]+)|([0-9])|(\n)|([ \t]+)|([!-/:-@[-`{-~])|(.)/gsu;

export function estimateTextTokens(text: string): number {
  let total = 0;
  for (const m of text.matchAll(RUN)) {
    if (m[1]) total += HAN_TOKENS;
    else if (m[2]) total += KANA_HANGUL_TOKENS;
    else if (m[3]) total += CJK_PUNCT_TOKENS;
    else if (m[4]) total += Math.max(1, Math.round(m[4].length / CHARS_PER_WORD_TOKEN));
    else if (m[5]) total += 1;
    else if (m[6]) total += 1;
    else if (m[7]) total += m[7].length > 1 ? m[7].length - 1 : 0;
    else if (m[8]) total += 1;
    else if (m[9]) total += Math.min(4, new TextEncoder().encode(m[9]).length);
  }
  return Math.ceil(total);
}

/** Tokens an image costs in the prompt (max dimension 1200 px after resizing). */
export const IMAGE_TOKENS = 1200;

/** Per-message overhead of chat templates (role markers, separators). */
export const MESSAGE_OVERHEAD_TOKENS = 4;

/** Safety margin applied to estimates (never to exact counts). */
export const ESTIMATE_SAFETY_MARGIN = 1.2;
