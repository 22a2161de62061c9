/**
 * The agent guide (docs/guide) is what the model answers "how do I …" from, so it may
 * describe only what exists: a channel or the web console is mentioned only once its code
 * is in src/ (the channel work extends the guide as it lands). Its command lines, config
 * keys and paths are checked with the README's and docs/'s in docs-name-what-exists.test.ts.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = join(import.meta.dirname, "..", "..");
const GUIDE = join(ROOT, "docs", "guide");
const pages = readdirSync(GUIDE)
  .filter((name) => name.endsWith(".md"))
  .map((name) => ({ name, text: readFileSync(join(GUIDE, name), "utf8") }));

/** Features the guide may mention only when the code named here exists. */
const FEATURES: { pattern: RegExp; code: string }[] = [
  { pattern: /web console/i, code: "src/console/index.ts" },
  { pattern: /\bQQ\b/, code: "src/channels/qq" },
  { pattern: /\bWeCom\b|企业微信/, code: "src/channels/wecom" },
  { pattern: /\bMQTT\b/, code: "src/mqtt/index.ts" },
];

describe("the agent guide", () => {
  it("mentions a channel or the web console only once its code exists", () => {
    const early: string[] = [];
    for (const { pattern, code } of FEATURES) {
      if (existsSync(join(ROOT, code))) continue;
      for (const page of pages) if (pattern.test(page.text)) early.push(`${page.name}: ${pattern}`);
    }
    expect(early).toEqual([]);
  });
});
