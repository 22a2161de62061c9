/**
 * Reply shaping for speech (Home Assistant's voice rooms, src/wyoming): the same rule as
 * the chat channels' (`reply-shaping.ts`: the cleaned reply, markdown flattened by
 * `markdownToPlain`), taken one step further for a voice that reads every character
 * aloud. Code and tables are left out, links keep only their words, emoji and bullets
 * go, common units and symbols are written as words (in English replies), and a reply longer than `maxChars`
 * ends at the last whole sentence that fits. The model is told the same in the turn's
 * facts (`describeSpeech`), so the shaping is a safety net, not a rewrite.
 */
import { markdownToPlain } from "./reply-shaping.ts";

/** A voice reply longer than this is cut at a sentence end (about 30 seconds of speech). */
export const SPEECH_MAX_CHARS = 600;

/** What the turn's facts tell the model about a spoken reply. */
export function describeSpeech(language: string | undefined): string {
  return [
    "spoken aloud by a voice assistant: plain sentences only, no markdown, lists, links, code, emoji or tables",
    "numbers, times and units as a person says them",
    "one to three short sentences unless asked for more",
    ...(language ? [`answer in the language ${language}`] : []),
  ].join("; ");
}

/** Units and symbols a text-to-speech voice reads badly, as words (number first). */
const UNITS: [RegExp, string][] = [
  [/(\d)\s*°C\b/g, "$1 degrees Celsius"],
  [/(\d)\s*°F\b/g, "$1 degrees Fahrenheit"],
  [/(\d)\s*°/g, "$1 degrees"],
  [/(\d)\s*%/g, "$1 percent"],
  [/(\d)\s*km\/h\b/g, "$1 kilometres per hour"],
  [/(\d)\s*kWh\b/g, "$1 kilowatt hours"],
  [/(\d)\s*kW\b/g, "$1 kilowatts"],
  [/(\d)\s*W\b/g, "$1 watts"],
  [/(\d)\s*km\b/g, "$1 kilometres"],
  [/(\d)\s*kg\b/g, "$1 kilograms"],
  [/(\d)\s*cm\b/g, "$1 centimetres"],
  [/(\d)\s*mm\b/g, "$1 millimetres"],
  [/(\d)\s*ml\b/g, "$1 millilitres"],
  [/(\d)\s*h\b/g, "$1 hours"],
  [/(\d)\s*min\b/g, "$1 minutes"],
  [/(\d{1,2}):(\d{2})\s*(am|pm)\b/gi, "$1:$2 $3"],
  [/(\d)\s*-\s*(\d)/g, "$1 to $2"],
  [/\s&\s/g, " and "],
];

const EMOJI = /[\p{Extended_Pictographic}\u{1F1E6}-\u{1F1FF}\u{FE0F}\u{200D}]/gu;

/** The words of one table row: its cells joined as a sentence. */
function tableRow(line: string): string {
  const cells = line
    .split("|")
    .map((c) => c.trim())
    .filter((c) => c !== "");
  return cells.length > 0 ? `${cells.join(", ")}.` : "";
}

export interface SpeechOptions {
  /** The request's language (`en`, `en-US`, `zh-CN`): units become English words only for English. */
  language?: string | undefined;
  maxChars?: number;
}

/** The text a voice should say for `reply` (may be empty when nothing speakable is left). */
export function shapeForSpeech(reply: string, options: SpeechOptions = {}): string {
  const english =
    (!options.language || /^en\b/i.test(options.language)) &&
    !/[\p{Script=Han}\p{Script=Hiragana}\p{Script=Hangul}]/u.test(reply);
  const withoutCode = reply
    .replace(/```[\s\S]*?```/g, " ")
    .replace(/<(\w+)>[\s\S]*?<\/\1>/g, " ")
    .replace(/!\[([^\]]*)\]\([^)]*\)/g, "$1")
    .replace(/\[([^\]]+)\]\([^)]*\)/g, "$1");
  const lines = markdownToPlain(withoutCode)
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => !/^\|?\s*:?-{2,}/.test(line))
    .map((line) => (line.startsWith("|") ? tableRow(line) : line))
    .map((line) => line.replace(/^(•|\d+[.)])\s+/, ""))
    .filter((line) => line !== "");
  let text = lines
    .map((line) => (/[.!?。！？:;,]$/.test(line) ? line : `${line}.`))
    .join(" ")
    .replace(/https?:\/\/\S+/g, "")
    .replace(/`/g, "")
    .replace(/[*_#>~]/g, "")
    .replace(EMOJI, "");
  if (english) for (const [pattern, words] of UNITS) text = text.replace(pattern, words);
  text = text
    .replace(/\(\s*\)/g, "")
    .replace(/\s+([.,!?;:])/g, "$1")
    .replace(/([.!?])\.+/g, "$1")
    .replace(/\s{2,}/g, " ")
    .trim();
  return cutAtSentence(text, options.maxChars ?? SPEECH_MAX_CHARS);
}

/** At most `maxChars`, ending at the last sentence end that fits (else a word end). */
function cutAtSentence(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  const head = text.slice(0, maxChars);
  const end = Math.max(
    ...[". ", "! ", "? ", "。", "！", "？"].map((mark) => {
      const at = head.lastIndexOf(mark);
      return at < 0 ? -1 : at + mark.trimEnd().length;
    }),
  );
  if (end > maxChars / 3) return head.slice(0, end).trim();
  const space = head.lastIndexOf(" ");
  return `${head.slice(0, space > 0 ? space : maxChars).trim()}…`;
}
