/**
 * `npm start` in a real terminal: one Ctrl-C reaches npm and clawbox (one process group)
 * and npm forwards its copy to clawbox again. That must read as one Ctrl-C: the service
 * drains, the reply running at the time completes and is stored whole, and it exits 0
 * (before the fix the echo was "SIGINT again: stopping now" and the reply ended aborted).
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { openaiText, type ScriptedServer, startFakeOpenAI } from "../fakes/openai-server.ts";
import { HAVE_PYTHON_PTY, ptyCli } from "../support/pty-cli.ts";
import { storedAssistantMessages, textOf } from "../support/slow-cloud-home.ts";

const ROOT = join(import.meta.dirname, "..", "..");
const STORY =
  "Once upon a time a small box on a shelf learned to listen, and every evening it told the family what the day had been like.";

if (!HAVE_PYTHON_PTY)
  console.warn("skipping the npm start Ctrl-C test: python3's pty module is absent");

let server: ScriptedServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe.skipIf(!HAVE_PYTHON_PTY)("one Ctrl-C under npm start", () => {
  it("drains: the running reply completes and is stored whole, exit 0", async () => {
    server = await startFakeOpenAI();
    // About 25 words, 150 ms apart: the reply is still streaming when Ctrl-C comes.
    server.enqueue(openaiText(STORY, { delayMs: 150 }));
    const home = mkdtempSync(join(tmpdir(), "clawbox-npm-ctrlc-"));
    writeFileSync(
      join(home, "clawbox.json"),
      JSON.stringify({
        server: { drainMs: 30_000 },
        models: {
          primary: "cloud",
          providers: {
            cloud: {
              kind: "openai",
              baseUrl: server.url,
              model: "m",
              authProfiles: [{ id: "p", apiKey: "test-key-0123456789" }],
            },
          },
        },
        memory: { enabled: false },
      }),
    );
    const term = ptyCli(
      ["--port", "0"],
      { CLAWBOX_HOME: home },
      {
        command: ["npm", "start", "--"],
        cwd: ROOT,
      },
    );
    try {
      await term.waitFor(/listening on http:\/\/127\.0\.0\.1:\d+/);
      const url = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(term.output())?.[1];
      const response = await fetch(`${url}/api/chat`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ message: "tell me a story", stream: true }),
      });
      const reader = (response.body as ReadableStream<Uint8Array>).getReader();
      const decoder = new TextDecoder();
      let body = "";
      while (!body.includes("Once")) {
        const { value, done } = await reader.read();
        if (done) break;
        body += decoder.decode(value);
      }
      const mark = term.output().length;
      term.ctrlC();
      await term.waitFor("SIGINT: stopping", mark);
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        body += decoder.decode(value);
      }
      expect(await term.exited).toBe(0);
      const shown = term.output().slice(mark);
      expect(shown).not.toContain("again: stopping now");
      expect(shown).not.toContain("aborting the replies");
      expect(body).toContain("family");
    } catch (error) {
      console.log(term.output());
      throw error;
    } finally {
      term.kill();
    }
    const [reply] = storedAssistantMessages(home);
    expect(reply?.stopReason).toBe("stop");
    expect(textOf(reply as never)).toBe(STORY);
  }, 120_000);
});
