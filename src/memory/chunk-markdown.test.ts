import { describe, expect, it } from "vitest";
import { chunkMarkdown, estimateTokens } from "./chunk-markdown.ts";

const opts = { tokens: 400, overlap: 80 };
const para = (i: number) =>
  `Line ${i}: the quick brown fox jumps over the lazy dog near the river bank.`;

describe("chunkMarkdown", () => {
  it("keeps chunks near 400 tokens with about 80 tokens of overlap and exact line ranges", () => {
    const lines = Array.from({ length: 200 }, (_, i) => para(i + 1));
    const chunks = chunkMarkdown("memory/a.md", lines.join("\n"), opts);
    expect(chunks.length).toBeGreaterThan(5);
    for (const c of chunks) {
      expect(c.tokens).toBeLessThanOrEqual(420);
      expect(c.text).toBe(lines.slice(c.startLine - 1, c.endLine).join("\n"));
    }
    for (let i = 1; i < chunks.length; i++) {
      const prev = chunks[i - 1];
      const cur = chunks[i];
      if (!prev || !cur) continue;
      expect(cur.startLine).toBeLessThanOrEqual(prev.endLine); // overlap
      const overlapText = lines.slice(cur.startLine - 1, prev.endLine).join("\n");
      expect(estimateTokens(overlapText)).toBeLessThanOrEqual(90);
      expect(estimateTokens(overlapText)).toBeGreaterThan(40);
    }
  });

  it("starts a new chunk at a heading and ignores # inside code fences", () => {
    const text = [
      "# One",
      ...Array.from({ length: 12 }, (_, i) => para(i)),
      "```sh",
      "# not a heading",
      "```",
      "## Two",
      "second section text",
    ].join("\n");
    const chunks = chunkMarkdown("MEMORY.md", text, opts);
    expect(chunks).toHaveLength(2);
    expect(chunks[0]?.text).toContain("# not a heading");
    expect(chunks[1]?.text.startsWith("## Two")).toBe(true);
    expect(chunks[1]?.startLine).toBe(17);
  });

  it("gives stable ids that survive lines shifting, and counts Chinese per character", () => {
    const body = "## 周末\n\n周六要带猫去看兽医。";
    const a = chunkMarkdown("memory/x.md", body, opts);
    const b = chunkMarkdown("memory/x.md", `\n\n${body}`, opts);
    expect(a[0]?.id).toBe(b[0]?.id);
    expect(b[0]?.startLine).toBe(3);
    expect(chunkMarkdown("memory/y.md", body, opts)[0]?.id).not.toBe(a[0]?.id);
    expect(estimateTokens("周六要带猫去看兽医")).toBe(9);
  });

  it("splits one enormous line instead of producing a giant chunk", () => {
    const chunks = chunkMarkdown("memory/log.md", "x".repeat(20000), opts);
    expect(chunks.length).toBeGreaterThan(5);
    for (const c of chunks) expect(c.startLine).toBe(1);
  });
});
