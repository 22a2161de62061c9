/**
 * Ideas that once lived in two places, written differently, and now live in one
 * (issue 28). A search for repeated blocks cannot see two styles of the same idea, so
 * each home is kept by a check read from the source itself (comments aside).
 */
import { describe, expect, it } from "vitest";
import { codeLines, shippedFiles, text } from "./source-tree.ts";

/** Lines of shipped code matching `pattern`, outside the `allowed` files. */
function linesMatching(pattern: RegExp, allowed: string[], files = shippedFiles): string[] {
  const found: string[] = [];
  for (const file of files) {
    if (allowed.includes(file)) continue;
    for (const { line, code } of codeLines(text.get(file) ?? "")) {
      if (pattern.test(code)) found.push(`${file}:${line}: ${code.trim()}`);
    }
  }
  return found;
}

describe("one idea, one home", () => {
  it("files are renamed into place only by the atomic writer (and the model download's .part file)", () => {
    // A temp-file-and-rename without the fsyncs can leave an empty clawbox.json after a
    // power cut, and replaces a symlinked file with a plain one.
    expect(
      linesMatching(
        /\brename(?:Sync)?\s*\(|\bfs\.rename|\{[^}]*\brename(?:Sync)?\b[^}]*\}\s*from/,
        ["src/system/atomic-write.ts", "src/models/pull-file.ts"],
      ),
    ).toEqual([]);
  });
});
