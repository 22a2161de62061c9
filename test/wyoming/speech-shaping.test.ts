/**
 * Replies for a voice (src/channels/speech-shaping.ts): the channels' markdown rule and
 * then no links, code, emoji, bullets or tables; units in words in English; short.
 */
import { describe, expect, it } from "vitest";
import { describeSpeech, shapeForSpeech } from "../../src/channels/index.ts";

describe("replies shaped for speech", () => {
  it("drops markdown, links, code, emoji and tables, and says units in words", () => {
    const reply = [
      "## Weather",
      "",
      "It is **21°C** and 60% humid 🌤️. See [the forecast](https://example.com/f).",
      "",
      "- Rain: 2-4 mm",
      "- Wind: 15 km/h",
      "",
      "| day | high |",
      "|-----|------|",
      "| Mon | 20°C |",
      "",
      "```js",
      "console.log(1)",
      "```",
      "Details at https://example.com/more & more.",
    ].join("\n");
    const said = shapeForSpeech(reply, { language: "en-GB" });
    expect(said).toBe(
      "Weather. It is 21 degrees Celsius and 60 percent humid. See the forecast. Rain: 2 to 4 millimetres. Wind: 15 kilometres per hour. day, high. Mon, 20 degrees Celsius. Details at and more.",
    );
    for (const gone of ["*", "#", "|", "http", "`", "console.log", "🌤"])
      expect(said).not.toContain(gone);
  });

  it("keeps Chinese as it is, without English unit words", () => {
    expect(shapeForSpeech("今天 **很** 热，气温 35°C。", { language: "zh-CN" })).toBe(
      "今天 很 热，气温 35°C。",
    );
  });

  it("a long reply ends at the last whole sentence that fits", () => {
    const said = shapeForSpeech("This is one sentence. ".repeat(100), { maxChars: 100 });
    expect(said.length).toBeLessThanOrEqual(100);
    expect(said.endsWith("sentence.")).toBe(true);
  });

  it("tells the model the same rule, in the transcript's language", () => {
    expect(describeSpeech("de")).toContain("no markdown, lists, links, code, emoji or tables");
    expect(describeSpeech("de")).toContain("answer in the language de");
    expect(describeSpeech(undefined)).not.toContain("answer in the language");
  });
});
