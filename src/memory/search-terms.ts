/**
 * How memory text becomes keyword-index terms, the way a search engine tokenizes:
 * - Latin scripts: words, case- and diacritic-folded (café → cafe), Porter-stemmed
 *   (adopted → adopt, keys → kei; the gain is measured in docs/MEMORY.md).
 * - Chinese and Japanese: dictionary words from ICU's word segmenter
 *   (`Intl.Segmenter`, built into Bun, no extra dependency: 奶奶喜欢喝什么茶 →
 *   奶奶|喜欢|喝|什么|茶), backed by every character and character bigram of each run,
 *   so a word the dictionary splits differently in the note and in the question still
 *   meets (茉莉花茶 in a note is found by 茶 or 花茶).
 * The indexed form is one space-separated string that FTS5's `unicode61` tokenizer
 * splits back into exactly these terms; queries drop question stop words.
 */
import { stemmer } from "stemmer";
import { isStopWord } from "./stop-words.ts";

const CJK_RUN =
  /[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af]+|[^\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af]+/gu;
const CJK = /[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af]/u;
const KANA = /[\u3040-\u30ff]/u;
const LATIN_WORD = /[\p{L}\p{N}]+/gu;

let zh: Intl.Segmenter | undefined;
let ja: Intl.Segmenter | undefined;

function segmenter(run: string): Intl.Segmenter {
  if (KANA.test(run)) {
    ja ??= new Intl.Segmenter("ja", { granularity: "word" });
    return ja;
  }
  zh ??= new Intl.Segmenter("zh", { granularity: "word" });
  return zh;
}

/** Lowercase, strip diacritics, fold full-width forms (NFKD). */
export function foldText(text: string): string {
  return text.normalize("NFKD").replace(/\p{M}/gu, "").toLowerCase();
}

/** Folded words; `stop` (queries) drops stop words before stemming, so "does" is one. */
function latinWords(run: string, stop = false): string[] {
  const words = foldText(run).match(LATIN_WORD) ?? [];
  return (stop ? words.filter((w) => !isStopWord(w)) : words).map(stemWord);
}

/** Porter stemming (keys → kei, adopted → adopt): measured in docs/MEMORY.md; numbers stay. */
function stemWord(word: string): string {
  return /\d/.test(word) ? word : stemmer(word);
}

function cjkWords(run: string): string[] {
  return [...segmenter(run).segment(run)]
    .filter((part) => part.isWordLike)
    .map((part) => part.segment);
}

function grams(run: string): string[] {
  const chars = [...run];
  const out: string[] = [...chars];
  for (let i = 0; i + 1 < chars.length; i++) out.push(`${chars[i]}${chars[i + 1]}`);
  return out;
}

/** The text to index: every term of `text`, space-separated (order is irrelevant). */
export function indexTerms(text: string): string {
  const out: string[] = [];
  for (const run of foldText(text).match(CJK_RUN) ?? []) {
    if (CJK.test(run)) {
      out.push(...cjkWords(run), ...grams(run));
    } else {
      out.push(...latinWords(run));
    }
  }
  return out.join(" ");
}

/**
 * Terms to look up for a question: words without question stop words (all of them when
 * nothing else is left); CJK words of three or more characters also as bigrams.
 */
export function queryTerms(query: string): string[] {
  const words: string[] = [];
  const all: string[] = [];
  for (const run of foldText(query).match(CJK_RUN) ?? []) {
    if (!CJK.test(run)) {
      words.push(...latinWords(run, true));
      all.push(...latinWords(run));
      continue;
    }
    for (const word of cjkWords(run)) {
      all.push(word);
      if (isStopWord(word)) continue;
      words.push(word);
      const chars = [...word];
      if (chars.length >= 3) {
        for (let i = 0; i + 1 < chars.length; i++) words.push(`${chars[i]}${chars[i + 1]}`);
      }
    }
  }
  return [...new Set(words.length > 0 ? words : all)];
}
