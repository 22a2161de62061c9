/**
 * Ideas that once lived in two places, written differently, and now live in one
 * (issue 28). A search for repeated blocks cannot see two styles of the same idea, so
 * each home is kept by a check read from the source itself (comments aside).
 */
import { describe, expect, it } from "vitest";
import { allFiles, codeLines, importsOf, shippedFiles, text } from "./source-tree.ts";

const FUNCTION =
  /^(export )?(?:async )?function\*? (\w+)|^(export )?const (\w+) = (?:async )?(?:\([^)]*\)|\w+) =>/;

/** Functions declared at the top level of shipped files: name, file, exported or not. */
function declaredFunctions(files = shippedFiles) {
  const found: { name: string; file: string; exported: boolean }[] = [];
  for (const file of files) {
    for (const line of (text.get(file) ?? "").split("\n")) {
      const match = FUNCTION.exec(line);
      const name = match?.[2] ?? match?.[4];
      if (name) found.push({ name, file, exported: Boolean(match?.[1] ?? match?.[3]) });
    }
  }
  return found;
}

/** Shipped code and the build scripts (which generate code), comments and re-export lines aside. */
const callerCode = new Map(
  [
    ...shippedFiles,
    ...allFiles.filter((f) => f.startsWith("scripts/") && !f.endsWith(".test.ts")),
  ].map((file) => [
    file,
    codeLines(text.get(file) ?? "")
      .map(({ code }) => code)
      .filter((code) => !/^\s*export (?:type )?\{[^}]*\}\s*from|^\s*(?:type )?\w+,\s*$/.test(code))
      .join("\n"),
  ]),
);

/** How often each caller file names `name`. */
function mentions(name: string): Map<string, number> {
  const word = new RegExp(`\\b${name}\\b`, "g");
  const counts = new Map<string, number>();
  for (const [file, code] of callerCode) {
    const n = code.match(word)?.length ?? 0;
    if (n > 0) counts.set(file, n);
  }
  return counts;
}

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

  it("every exported function has a caller in shipped code (not only in tests)", () => {
    const uncalled = declaredFunctions()
      .filter(({ exported }) => exported)
      .filter(({ name, file }) => {
        const uses = mentions(name);
        const elsewhere = [...uses.keys()].some((other) => other !== file);
        return !elsewhere && (uses.get(file) ?? 0) < 2;
      })
      .map(({ name, file }) => `${file}: ${name}`);
    expect(uncalled).toEqual([]);
  });

  it("a function name means one thing: no two shipped files declare an exported function's name", () => {
    const all = declaredFunctions();
    const exported = new Set(all.filter((f) => f.exported).map((f) => f.name));
    const twice = [...exported].flatMap((name) => {
      const files = all.filter((f) => f.name === name).map((f) => f.file);
      return files.length > 1 ? [`${name}: ${files.join(", ")}`] : [];
    });
    expect(twice).toEqual([]);
  });

  it("child processes are started only by the bounded process runner", () => {
    expect(
      linesMatching(
        /\b(?:spawn|spawnSync|exec|execSync|execFile|execFileSync|fork)\s*\(|from "node:child_process"/,
        ["src/system/bounded-process.ts"],
      ).filter((line) => !/\.exec\(|Bun\.spawn/.test(line) || /Bun\.spawn/.test(line)),
    ).toEqual([]);
  });

  it("context/ knows no provider's wire format: it asks the provider for its overhead and kind", () => {
    // What a provider may tell the context engine; its templates, tools block and
    // tool-result wrapper stay inside providers/.
    const told = new Set([
      "ChatTemplate",
      "ModelKind",
      "OverheadCounter",
      "PromptOverhead",
      "Provider",
      "ProviderRequest",
      "ToolDefinition",
      "isOverflowText",
      "modelKindOf",
      "promptOverhead",
    ]);
    const context = shippedFiles.filter((file) => file.startsWith("src/context/"));
    const internals = context.flatMap((file) =>
      importsOf(file)
        .filter((edge) => edge.target.startsWith("src/providers/"))
        .flatMap((edge) =>
          edge.target !== "src/providers/index.ts"
            ? [`${file} -> ${edge.target}`]
            : edge.names.filter((name) => !told.has(name)).map((name) => `${file}: ${name}`),
        ),
    );
    expect(internals).toEqual([]);
    expect(
      linesMatching(/<\/?tool_response>|<\|im_start\|>|kind === "local"/, [], context),
    ).toEqual([]);
    expect(
      linesMatching(/\.kind === "local" \? "local" : "cloud"/, [
        "src/providers/prompt-overhead.ts",
      ]),
    ).toEqual([]);
  });

  it("a chat turn streams to the web in one vocabulary: named SSE events are written by agent/chat-stream.ts alone", () => {
    // POST /api/chat and the console's chat once named and shaped the same turn's
    // events differently; the OpenAI routes speak OpenAI's own (unnamed) chunks.
    const web = shippedFiles.filter((f) => /^src\/(?:server|console)\//.test(f));
    expect(linesMatching(/\bwriteSSE\s*\(\s*\{\s*event\b/, ["src/agent/chat-stream.ts"])).toEqual(
      [],
    );
    expect(linesMatching(/\bevent:\s*"\w+"/, [], web)).toEqual([]);
    expect(
      web.filter(
        (f) =>
          /\bstreamSSE\(/.test(text.get(f) ?? "") && !/\bstreamChatTurn\(/.test(text.get(f) ?? ""),
      ),
    ).toEqual([
      "src/server/openai-api/openai-routes.ts",
      // A local model id as a plain model server: OpenAI's chunks too (issue 41).
      "src/server/openai-api/plain-model-routes.ts",
    ]);
  });

  it("the whole ClawboxConfig is taken only by config/, cli/ and the files still on the list", () => {
    // Issue 28: an area takes its config section or the values it needs. This list only
    // shrinks: the dispatcher left it (it took the whole config for the owners and
    // tools.groupOwnerPowers), then the agent's run loop, model calls, model choice and
    // providers, the context engine, the model doctor checks and model activation (each
    // names the sections it reads; a holder of `models` where a reload replaces it), the
    // channels, the scheduler, the tool policy, memory, the MQTT bridge, report and
    // checks, and the agent itself. The start-up wiring is cli/. Two remain, each for the
    // whole file: the console's channel forms read and preview-edit clawbox.json by key
    // path, and the console's deps (handed over by `clawbox run`) let the Logs page hide
    // every secret of the config.
    const STILL_TAKING_THE_WHOLE_CONFIG = [
      "src/console/api-channels.ts",
      "src/console/console-deps.ts",
    ];
    const takers = shippedFiles.filter(
      (file) =>
        !file.startsWith("src/config/") &&
        !file.startsWith("src/cli/") &&
        codeLines(text.get(file) ?? "").some(({ code }) => /\bClawboxConfig\b/.test(code)),
    );
    expect(takers.filter((file) => !STILL_TAKING_THE_WHOLE_CONFIG.includes(file))).toEqual([]);
    // A file that stopped taking it leaves the list too, so the list cannot go stale.
    expect(STILL_TAKING_THE_WHOLE_CONFIG.filter((file) => !takers.includes(file))).toEqual([]);
  });
});
