/**
 * A box without a chat model answers with the one command to fix it, and names the same
 * model the log's hint names (the reply used to suggest a fixed model while the log
 * recommended the one that fits the board).
 */
import { homedir } from "node:os";
import { afterEach, describe, expect, it } from "vitest";
import { missingModelHint, missingModelPullCommand } from "../../src/models/index.ts";
import { createHarness, type Harness, ownerRequest } from "./agent-harness.ts";

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

describe("a chat before any model is installed", () => {
  it("replies with the pull command the log's hint recommends for this board", async () => {
    harness = createHarness({
      config: {
        models: {
          primary: "local",
          fallbacks: [],
          providers: { local: { kind: "local", threads: 1 } },
        },
      },
    });
    const result = await harness.agent.chat(ownerRequest("hello"));
    expect(result.error?.code).toBe("MODEL_NOT_FOUND");
    const command = missingModelPullCommand(homedir());
    expect(command).toMatch(/^clawbox models pull \S+$/);
    expect(result.reply).toContain(`run: ${command}`);
    expect(missingModelHint(homedir())).toContain(`"${command}"`);
  });
});
