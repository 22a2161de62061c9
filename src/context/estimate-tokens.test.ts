import { describe, expect, it } from "vitest";
import { estimateTextTokens } from "./estimate-tokens.ts";

// The estimator as first written: one regular-expression match per run. The scan that
// replaced it (no match objects, so no garbage per counted message) must agree exactly.
const RUN =
  /(\p{Script=Han})|([\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}])|([\u3000-\u303f\uff00-\uffef])|([A-Za-z]+)|([0-9])|(\n)|([ \t]+)|([!-/:-@[-`{-~])|(.)/gsu;
function referenceEstimate(text: string): number {
  let total = 0;
  for (const m of text.matchAll(RUN)) {
    if (m[1]) total += 1.45;
    else if (m[2]) total += 1.5;
    else if (m[3]) total += 1;
    else if (m[4]) total += Math.max(1, Math.round(m[4].length / 4.2));
    else if (m[5]) total += 1;
    else if (m[6]) total += 1;
    else if (m[7]) total += m[7].length > 1 ? m[7].length - 1 : 0;
    else if (m[8]) total += 1;
    else if (m[9]) total += Math.min(4, new TextEncoder().encode(m[9]).length);
  }
  return Math.ceil(total);
}

// Every class the estimator tells apart, and their borders.
const PIECES = [
  "a",
  "Z",
  "word",
  "ab",
  "x",
  " ",
  "  ",
  "\t",
  " \t ",
  "\n",
  "\r",
  "0",
  "9",
  "!",
  "/",
  ":",
  "@",
  "[",
  "`",
  "{",
  "~",
  "\u0000",
  "\u007f",
  "é",
  "ß",
  "Ω",
  "ж",
  "\u0800",
  "中",
  "文",
  "々",
  "〇",
  "\u3000",
  "。",
  "、",
  "「",
  "\u303f",
  "ひ",
  "カ",
  "ｶ",
  "한",
  "\u1100",
  "ー",
  "\uff01",
  "Ａ",
  "\uffef",
  "\ufff0",
  "😀",
  "𠀀",
  "\ud800",
  "\udc00",
  "\ud83d",
  "x\ud800y",
  "€",
  "\u2e80",
];

function randomText(random: () => number): string {
  let text = "";
  const length = Math.floor(random() * 40);
  for (let i = 0; i < length; i++) text += PIECES[Math.floor(random() * PIECES.length)];
  return text;
}

describe("estimateTextTokens", () => {
  it("agrees with the one-match-per-run estimator on every class and 5,000 mixed texts", () => {
    for (const piece of PIECES)
      expect(estimateTextTokens(piece), JSON.stringify(piece)).toBe(referenceEstimate(piece));
    let seed = 7;
    const random = () => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed / 2147483648;
    };
    for (let i = 0; i < 5000; i++) {
      const text = randomText(random);
      expect(estimateTextTokens(text), JSON.stringify(text)).toBe(referenceEstimate(text));
    }
  });

  it("counts the sample household texts as before", () => {
    const texts = [
      "It is 21.5 °C in the living room and 48 % humidity; the window is closed.",
      "好的，客厅的灯已经关了。明天早上七点提醒你浇花。",
      "把客厅的灯关掉，明天早上七点提醒我浇花。",
      "",
    ];
    for (const text of texts) expect(estimateTextTokens(text)).toBe(referenceEstimate(text));
  });
});
