/**
 * The service gives memory back once it has been idle (src/system/idle-trim.ts, wired
 * in start-runtime for `clawbox run`): after a few turns and IDLE_TRIM_MS without one,
 * it drops per-session caches, shrinks SQLite's page cache and runs a full collection,
 * and says so at debug level. A turn after the trim still works (the caches were only
 * shortcuts). How much comes back is measured by `npm run bench -- rss-after-use`.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { openaiText, startFakeOpenAI } from "../fakes/openai-server.ts";
import { cloudOnlyConfig } from "../support/openai-provider-fixture.ts";
import { startService } from "../support/run-service.ts";

const LINE = "idle: memory given back";

describe("clawbox run when idle", () => {
  it("gives memory back after a burst of turns, and the next turn still works", async () => {
    const model = await startFakeOpenAI(() => openaiText("The kitchen light is on."));
    const home = mkdtempSync(join(tmpdir(), "clawbox-idle-trim-"));
    writeFileSync(
      join(home, "clawbox.json"),
      JSON.stringify(cloudOnlyConfig(model.url, { log: { level: "debug" } })),
    );
    const service = await startService(["--port", "0"], { CLAWBOX_HOME: home, CLAWBOX_CONFIG: "" });
    const ask = async (session: string) => {
      const res = await fetch(`${service.url}/api/chat`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ message: "is the kitchen light on?", session }),
      });
      return (await res.json()) as { reply?: string };
    };
    try {
      for (const session of ["kitchen", "garage", "kitchen"]) {
        expect((await ask(session)).reply).toBe("The kitchen light is on.");
      }
      const afterTurns = service.output().length;
      const trimmed = () => service.output().slice(afterTurns).includes(LINE);
      for (let waited = 0; !trimmed() && waited < 60_000; waited += 250) await Bun.sleep(250);
      const line = service
        .output()
        .slice(afterTurns)
        .split("\n")
        .find((l) => l.includes(LINE));
      expect(line).toMatch(/rssBeforeMb.*rssAfterMb/);
      expect((await ask("kitchen")).reply).toBe("The kitchen light is on.");
      // System prompt and the kitchen session's three turns: the trim dropped no data.
      expect(model.requests.at(-1)?.body.messages).toHaveLength(6);
    } finally {
      service.child.kill("SIGTERM");
      await service.exited;
      await model.close();
    }
  }, 120_000);
});
