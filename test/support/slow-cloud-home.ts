/**
 * A home whose only model is a fake OpenAI server that streams the start of a reply
 * and then holds the stream open, so a reply is still running when a test presses
 * Ctrl-C or sends a signal. Reads back what the transcript stored.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type AssistantMessage, messageText } from "../../src/messages/index.ts";
import { Store } from "../../src/store/index.ts";
import { openaiText, type ScriptedServer, startFakeOpenAI } from "../fakes/openai-server.ts";

export const PARTIAL = "The first words of a long story ";

export async function slowCloudHome(
  prefix: string,
  extraConfig: Record<string, unknown> = {},
): Promise<{ home: string; server: ScriptedServer }> {
  const server = await startFakeOpenAI();
  // Every request: the partial words, then nothing more until the client goes away.
  const words = PARTIAL.match(/\S+\s*/g)?.length ?? 0;
  const step = () => openaiText(`${PARTIAL}and the rest never comes.`, { holdAfter: 1 + words });
  for (let i = 0; i < 20; i++) server.enqueue(step());
  const home = mkdtempSync(join(tmpdir(), prefix));
  writeFileSync(
    join(home, "clawbox.json"),
    JSON.stringify({
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
      ...extraConfig,
    }),
  );
  return { home, server };
}

/** The assistant messages stored in the home's sessions, oldest first. */
export function storedAssistantMessages(home: string): AssistantMessage[] {
  const store = Store.open({ path: join(home, "clawbox.db") });
  try {
    return store.sessions
      .list()
      .flatMap((s) => store.transcript.all(s.sessionId))
      .flatMap((e) => (e.type === "message" && e.message.role === "assistant" ? [e.message] : []));
  } finally {
    store.close();
  }
}

export const textOf = (m: AssistantMessage): string => messageText(m);
