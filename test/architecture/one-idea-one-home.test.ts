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

  it("the message of anything thrown is read by errorMessage() alone", () => {
    expect(
      linesMatching(/(\b[\w.]+) instanceof Error \? \1\.message : String\(\1\)/, [
        "src/errors/error-message.ts",
      ]),
    ).toEqual([]);
  });

  it("src/ throws ClawboxError (a code callers branch on), not a plain Error", () => {
    expect(
      linesMatching(/\bnew Error\(/, [
        // An AbortSignal's reason: the watchdog's own flags tell a timeout from the
        // caller's abort, and classifyThrown passes any ClawboxError through unclassified.
        "src/providers/idle-watchdog.ts",
        // mqtt.js's Store interface hands errors to its callbacks.
        "src/mqtt/reply-store.ts",
        // Caught in the same file and shown beside the form field.
        "src/console/api-channels.ts",
      ]),
    ).toEqual([]);
  });

  it("there is one list of error codes (HTTP codes included)", () => {
    expect(
      linesMatching(/\btype \w*ErrorCode\s*=\s*$|\btype \w*ErrorCode\s*=\s*\|?\s*"/, [
        "src/errors/clawbox-error.ts",
      ]),
    ).toEqual([]);
    expect(text.get("src/errors/clawbox-error.ts")).toMatch(/export type ErrorCode =\n/);
  });
});
