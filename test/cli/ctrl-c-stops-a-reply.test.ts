import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { ScriptedServer } from "../fakes/openai-server.ts";
import { HAVE_PYTHON_PTY, ptyCli } from "../support/pty-cli.ts";
import {
  PARTIAL,
  slowCloudHome,
  storedAssistantMessages,
  textOf,
} from "../support/slow-cloud-home.ts";
import { HAVE_STORIES, STORIES_MODEL } from "../support/stories-model.ts";

if (!HAVE_PYTHON_PTY) console.warn("skipping Ctrl-C tests: python3 with the pty module is absent");

let server: ScriptedServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe.skipIf(!HAVE_PYTHON_PTY)("Ctrl-C in a terminal", () => {
  it("REPL: the first Ctrl-C stops the reply and keeps it; Ctrl-C at the empty prompt quits", async () => {
    const setup = await slowCloudHome("clawbox-ctrlc-");
    server = setup.server;
    const term = ptyCli(["chat"], { CLAWBOX_HOME: setup.home });
    try {
      await term.waitFor("> ");
      term.type("tell me a story\r");
      await term.waitFor(PARTIAL.trim());
      let mark = term.output().length;
      term.ctrlC();
      await term.waitFor("[stopped; the partial reply is kept]", mark);
      await term.waitFor("> ", mark);
      // Only the note: no internal log line (a WARN of the aborted turn) in the conversation.
      const stopped = term.output().slice(mark);
      expect(stopped, stopped).not.toMatch(/\b(WARN|ERROR|INFO)\b/);
      // Still alive and usable: a REPL command answers.
      mark = term.output().length;
      term.type("/help\r");
      await term.waitFor("/quit, /exit", mark);
      await term.waitFor("> ", mark);
      term.ctrlC();
      expect(await term.exited).toBe(0);
    } finally {
      term.kill();
    }
    const replies = storedAssistantMessages(setup.home);
    expect(replies).toHaveLength(1);
    expect(replies[0]?.stopReason).toBe("aborted");
    expect(textOf(replies[0] as never)).toContain(PARTIAL.trim());
  }, 90_000);

  it("chat -m: Ctrl-C stops the reply, prints and stores what came, exits 130", async () => {
    const setup = await slowCloudHome("clawbox-ctrlc-m-");
    server = setup.server;
    const term = ptyCli(["chat", "-m", "tell me a story"], { CLAWBOX_HOME: setup.home });
    try {
      await term.waitFor(PARTIAL.trim());
      const mark = term.output().length;
      term.ctrlC();
      expect(await term.exited).toBe(130);
      expect(term.output()).toContain("[stopped; the partial reply is kept]");
      const stopped = term.output().slice(mark);
      expect(stopped, stopped).not.toMatch(/\b(WARN|ERROR|INFO)\b/);
    } finally {
      term.kill();
    }
    const replies = storedAssistantMessages(setup.home);
    expect(replies).toHaveLength(1);
    expect(replies[0]?.stopReason).toBe("aborted");
    expect(textOf(replies[0] as never)).toContain(PARTIAL.trim());
  }, 90_000);
});

describe.skipIf(!HAVE_PYTHON_PTY)("REPL slash commands", () => {
  it("answers /help, refuses /bogus with the known list (never sent to the model), and /quit leaves", async () => {
    const setup = await slowCloudHome("clawbox-slash-");
    server = setup.server;
    const term = ptyCli(["chat"], { CLAWBOX_HOME: setup.home });
    try {
      await term.waitFor("> ");
      let mark = term.output().length;
      term.type("/help\r");
      await term.waitFor("/status", mark);
      mark = term.output().length;
      term.type("/bogus now\r");
      await term.waitFor("unknown command /bogus; known commands: /help, /quit, /exit, /new", mark);
      await term.waitFor("> ", mark);
      term.type("/exit\r");
      expect(await term.exited).toBe(0);
    } finally {
      term.kill();
    }
    expect(server.requests).toHaveLength(0);
    expect(storedAssistantMessages(setup.home)).toHaveLength(0);
  }, 90_000);
});

describe.skipIf(!HAVE_PYTHON_PTY || !HAVE_STORIES)("Ctrl-C with the local model loaded", () => {
  it("chat -m: stops the reply instead of dying with the llama.cpp signal hook", async () => {
    const home = mkdtempSync(join(tmpdir(), "clawbox-ctrlc-local-"));
    writeFileSync(
      join(home, "clawbox.json"),
      JSON.stringify({
        models: {
          providers: {
            local: {
              kind: "local",
              path: STORIES_MODEL,
              maxTokens: 1500,
              contextSize: 2048,
              threads: 1,
              toolCalling: "off",
            },
          },
        },
        memory: { enabled: false },
      }),
    );
    const term = ptyCli(["chat", "-m", "Once upon a time there was a dragon"], {
      CLAWBOX_HOME: home,
    });
    try {
      await term.waitFor(/\S{3,}/, term.output().indexOf("created") + 200);
      const mark = term.output().length;
      term.ctrlC();
      const code = await term.exited;
      const replies = storedAssistantMessages(home);
      if (replies[0]?.stopReason === "stop") {
        console.warn("the reply finished before Ctrl-C arrived; nothing to check");
        return;
      }
      expect(term.output()).toContain("[stopped; the partial reply is kept]");
      expect(term.output().slice(mark)).not.toMatch(/\b(WARN|ERROR|INFO)\b/);
      expect(code).toBe(130);
      expect(replies[0]?.stopReason).toBe("aborted");
    } finally {
      term.kill();
    }
  }, 120_000);
});
