/**
 * Session keys have one rule, in one place (issue 22): `src/sessions/` builds, parses
 * and validates them, and every other area asks its resolver. Five shapes of the same
 * address and nine places that built keys were how a WeCom owner's reminders got lost
 * and how `clawbox cron add` missed the main session. Read from the source itself:
 * outside src/sessions/, no code (comments aside) writes or matches the `agent:` prefix
 * of a key, builds a `…:direct:…`/`…:group:…` address from parts, or splits a key.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { codeLines, ROOT, walk } from "./source-tree.ts";

/** What building or parsing a key looks like in code. */
const KEY_CODE: { what: string; pattern: RegExp }[] = [
  // "agent:main:…", `agent:${id}:…`, 'agent:…' (a placeholder like "agent:<id>" in a message is prose)
  { what: "writes a key's agent: prefix", pattern: /[`"']agent:(?!<)/ },
  { what: "matches keys with a regular expression", pattern: /\/\^?agent:/ },
  { what: "builds an address from parts", pattern: /:(?:direct|group):\$\{/ },
  { what: "splits a key", pattern: /[kK]ey\.split\(/ },
];

function keyCodeOutsideSessions(files: Map<string, string>): string[] {
  const found: string[] = [];
  for (const [file, text] of files) {
    if (file.startsWith("src/sessions/")) continue;
    for (const { line, code } of codeLines(text)) {
      for (const { what, pattern } of KEY_CODE) {
        if (pattern.test(code)) found.push(`${file}:${line} ${what}: ${code.trim()}`);
      }
    }
  }
  return found;
}

describe("session keys", () => {
  const files = new Map(
    walk("src", /^(?!.*\.test\.ts$).*\.(ts|js)$/).map((file) => [
      file,
      readFileSync(join(ROOT, file), "utf8"),
    ]),
  );

  it("are built and parsed only in src/sessions/", () => {
    expect(keyCodeOutsideSessions(files)).toEqual([]);
  });

  it("the check sees the ways keys used to be built elsewhere", () => {
    /** Source text with `#{…}` for a template placeholder (kept out of string literals here). */
    const src = (text: string) => text.replaceAll("#{", "${");
    const old = new Map([
      [
        "src/server/create-app.ts",
        src("  return `agent:#{agentId}:#{channel}:direct:#{session}`;"),
      ],
      [
        "src/scheduler/heartbeat.ts",
        src("export const key = (id: string) => `agent:#{id}:heartbeat`;"),
      ],
      ["src/console/api-chat.ts", '  z.regex(/^agent:[^:\\s]+:/, "must be a session key"),'],
      ["src/channels/dispatcher.ts", src("  replyTo: `#{message.channel}:direct:#{peerId}`,")],
      ["src/server/web-session.ts", '  const segments = sessionKey.split(":");'],
      ["src/sessions/session-key.ts", src("  return `agent:#{agentId}:#{name}`;")],
      [
        "src/mqtt/x.ts",
        '/** Default `agent:<agentId>:mqtt:direct:home-assistant`. */\nconst a = 1; // "agent:main:main"',
      ],
    ]);
    expect(keyCodeOutsideSessions(old).map((line) => line.split(" ")[0])).toEqual([
      "src/server/create-app.ts:1",
      "src/server/create-app.ts:1",
      "src/scheduler/heartbeat.ts:1",
      "src/console/api-chat.ts:1",
      "src/channels/dispatcher.ts:1",
      "src/server/web-session.ts:1",
    ]);
  });
});
