import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  anthropicReply,
  type ScriptedServer,
  startFakeAnthropic,
} from "../fakes/anthropic-server.ts";
import { runCli } from "../support/run-cli.ts";

let server: ScriptedServer;
beforeAll(async () => {
  server = await startFakeAnthropic();
});
afterAll(() => server.close());

describe("clawbox chat with an Anthropic model", () => {
  it("keeps working after a tool returned empty output (the API rejects empty text blocks)", async () => {
    const home = mkdtempSync(join(tmpdir(), "clawbox-anthropic-"));
    mkdirSync(join(home, "workspace"), { recursive: true });
    writeFileSync(join(home, "workspace", "empty.txt"), "");
    const configFile = join(home, "clawbox.json");
    writeFileSync(
      configFile,
      JSON.stringify({
        models: {
          primary: "claude",
          providers: {
            claude: {
              kind: "anthropic",
              baseUrl: server.url,
              model: "claude-fake",
              authProfiles: [{ id: "main", apiKey: "ant-test-key-000000" }],
            },
          },
        },
        memory: { enabled: false },
      }),
    );
    const env = { CLAWBOX_HOME: home, CLAWBOX_CONFIG: configFile };
    server.enqueue(
      anthropicReply([
        { type: "tool_use", id: "toolu_read1", name: "read", rawInput: '{"path":"empty.txt"}' },
      ]),
      anthropicReply([{ type: "text", text: "The file is empty." }]),
    );
    const first = await runCli(["chat", "-m", "what is in empty.txt?"], env);
    expect(first.stderr).not.toMatch(/failed|error/i);
    expect(first.code).toBe(0);
    expect(first.stdout).toContain("The file is empty.");

    for (const text of ["thanks", "and now?"]) {
      const next = await runCli(["chat", "-m", text], env);
      expect(next.code).toBe(0);
      expect(next.stdout.trim()).toBe("ok");
    }
    const sent = JSON.stringify(server.requests.at(-1)?.body.messages);
    expect(sent).toContain('"tool_use_id":"toolu_read1"');
    expect(sent).toContain("(no output)");
  });
});
