/** The built-in file tools against a temp workspace, called as an owner or a stranger. */
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { configSchema } from "../../src/config/index.ts";
import { Store } from "../../src/store/index.ts";
import { type AgentTool, createBaseTools, type ToolContext } from "../../src/tools/index.ts";

export interface FileToolRig {
  dir: string;
  workspace: string;
  run(
    name: string,
    args: Record<string, unknown>,
    over?: Partial<ToolContext>,
  ): Promise<{ isError: boolean; text: string }>;
  close(): void;
}

export function fileToolRig(
  options: { tools?: Record<string, unknown>; readRoots?: string[] } = {},
): FileToolRig {
  const dir = mkdtempSync(join(tmpdir(), "clawbox-files-"));
  const workspace = join(dir, "workspace");
  mkdirSync(workspace);
  const store = Store.open({ path: join(dir, "db.sqlite") });
  const tools = new Map<string, AgentTool>(
    createBaseTools({ store, tools: configSchema.parse({ tools: options.tools ?? {} }).tools }).map(
      (t) => [t.name, t],
    ),
  );
  return {
    dir,
    workspace,
    async run(name, args, over = {}) {
      const tool = tools.get(name);
      if (!tool) throw new Error(`no tool ${name}`);
      const out = await tool.execute(args, {
        sessionId: "s",
        sessionKey: "k",
        isOwner: true,
        workspace,
        readRoots: options.readRoots ?? [],
        signal: new AbortController().signal,
        ...over,
      });
      return {
        isError: out.isError === true,
        text: out.content.map((c) => ("text" in c ? c.text : "")).join(""),
      };
    },
    close() {
      store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
