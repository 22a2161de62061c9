/**
 * The Workspace page: the owner's prompt files (AGENTS.md, SOUL.md, USER.md, IDENTITY.md,
 * TOOLS.md, HEARTBEAT.md, MEMORY.md) read and saved from the browser. Guarantees:
 * - a save names the version it started from (a hash of the text it loaded); a file that
 *   changed on disk since (an SSH edit, the agent) is not overwritten: 409, and the page
 *   offers to reload it;
 * - it is written with the atomic writer (a power cut leaves the old or the new file);
 * - only those seven names, and never through a link that leads out of the workspace;
 * - TOOLS.md's device entries are checked by the runtime's own parser, and its problems
 *   come back with their line numbers;
 * - the next turn reads the saved file (the workspace cache checks mtime and size).
 */
import { createHash } from "node:crypto";
import { existsSync, readFileSync, realpathSync, statSync } from "node:fs";
import { join } from "node:path";
import type { Hono } from "hono";
import { z } from "../schema/index.ts";
import { writeFileAtomic } from "../system/index.ts";
import { outsideWorkspace, parseToolsMd } from "../workspace/index.ts";
import type { ConsoleDeps } from "./console-deps.ts";
import type { ConsoleEnv } from "./console-env.ts";
import { apiError, readBody } from "./json-body.ts";

export const EDITABLE_FILES = [
  "AGENTS.md",
  "SOUL.md",
  "USER.md",
  "IDENTITY.md",
  "TOOLS.md",
  "HEARTBEAT.md",
  "MEMORY.md",
] as const;

/** Largest file the page edits (the prompt caps bootstrap files far below this). */
const MAX_FILE_CHARS = 200_000;
const ABSENT = "absent";

const saveBody = z.object({
  text: z.string().check(z.maxLength(MAX_FILE_CHARS)),
  /** The version the page loaded ("absent" for a file that did not exist). */
  version: z.string().check(z.minLength(1), z.maxLength(80)),
});
const checkBody = z.object({ text: z.string().check(z.maxLength(MAX_FILE_CHARS)) });

const versionOf = (text: string | undefined): string =>
  text === undefined ? ABSENT : createHash("sha256").update(text).digest("hex").slice(0, 16);

/** What the runtime makes of TOOLS.md: its devices and its problems by line. */
function toolsReport(text: string) {
  const parsed = parseToolsMd(text);
  return {
    devices: [
      ...parsed.cameras.map((c) => ({ kind: "camera", name: c.name })),
      ...parsed.sshHosts.map((h) => ({ kind: "ssh host", name: h.name })),
    ],
    problems: parsed.issues.map((i) => ({ line: i.line, message: i.message })),
  };
}

export function registerWorkspaceRoutes(app: Hono<ConsoleEnv>, deps: ConsoleDeps): void {
  const workspace = deps.paths.workspace;
  const isEditable = (name: string): name is (typeof EDITABLE_FILES)[number] =>
    (EDITABLE_FILES as readonly string[]).includes(name);

  /** The file's text (undefined when absent), or why it may not be used. */
  const read = (name: string): { text: string | undefined } | { refused: string } => {
    const path = join(workspace, name);
    const outside = outsideWorkspace(path, realpathSync(workspace));
    if (outside) return { refused: `${name}: ${outside}` };
    if (!existsSync(path)) return { text: undefined };
    if (!statSync(path).isFile()) return { refused: `${name}: not a regular file` };
    return { text: readFileSync(path, "utf8") };
  };

  app.get("/console/api/workspace", (c) =>
    c.json({
      files: EDITABLE_FILES.map((name) => {
        const path = join(workspace, name);
        const exists = existsSync(path);
        return { name, exists, bytes: exists ? statSync(path).size : 0 };
      }),
    }),
  );

  app.get("/console/api/workspace/:name", (c) => {
    const name = c.req.param("name");
    if (!isEditable(name))
      return apiError(c, 404, "NOT_FOUND", `${name} is not a workspace file the console edits`);
    const got = read(name);
    if ("refused" in got) return apiError(c, 403, "WORKSPACE_ESCAPE", got.refused);
    return c.json({
      name,
      text: got.text ?? "",
      exists: got.text !== undefined,
      version: versionOf(got.text),
      ...(name === "TOOLS.md" ? { tools: toolsReport(got.text ?? "") } : {}),
    });
  });

  /** TOOLS.md's problems for text not saved yet (the page checks as the owner types). */
  app.post("/console/api/workspace/check", async (c) => {
    const body = await readBody(c, checkBody);
    if (!body.ok) return body.response;
    return c.json(toolsReport(body.value.text));
  });

  app.post("/console/api/workspace/:name", async (c) => {
    const name = c.req.param("name");
    if (!isEditable(name))
      return apiError(c, 404, "NOT_FOUND", `${name} is not a workspace file the console edits`);
    const body = await readBody(c, saveBody);
    if (!body.ok) return body.response;
    const got = read(name);
    if ("refused" in got) return apiError(c, 403, "WORKSPACE_ESCAPE", got.refused);
    const current = versionOf(got.text);
    if (current !== body.value.version)
      return c.json(
        {
          error: {
            code: "FILE_CHANGED",
            message: `${name} changed on the box since you opened it (another editor or the assistant). Reload it to see the new text; your text was not saved.`,
          },
          version: current,
        },
        409,
      );
    writeFileAtomic(join(workspace, name), body.value.text);
    deps.logger.info("workspace file saved from the console", {
      file: name,
      chars: body.value.text.length,
    });
    return c.json({
      name,
      version: versionOf(body.value.text),
      ...(name === "TOOLS.md" ? { tools: toolsReport(body.value.text) } : {}),
    });
  });
}
