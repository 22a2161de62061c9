/**
 * Attack 10 of issue 23: a command the service runs reads the service's environment
 * through `/proc/$PPID/environ` (any secret passed by environment, e.g. CLAWBOX_TOKEN).
 * A real `clawbox run` as an unprivileged user (uid 65534 through setpriv, or root with
 * every capability dropped when uid 65534 cannot reach the checkout: a root with
 * CAP_SYS_PTRACE reads any process's environ whatever the service did) gets
 * CLAWBOX_TOKEN from its environment; the owner's turn (bearer token) runs `exec` with exactly that command.
 * The tool result the model receives holds "Permission denied", never the token.
 */
import { chownSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  openaiText,
  openaiToolCall,
  type ScriptedServer,
  startFakeOpenAI,
} from "../fakes/openai-server.ts";
import {
  asUnprivilegedService,
  CAN_DROP_TO_LOCAL_USER,
  LOCAL_USER_UID,
} from "../support/local-user.ts";
import { type RunningService, startService } from "../support/run-service.ts";
import { CLAWBOX_BIN } from "../support/spawn-cli.ts";

const TOKEN = "env-token-must-stay-secret-0123456789";

if (!CAN_DROP_TO_LOCAL_USER) console.warn("service environment test skipped: setpriv is absent");

describe.skipIf(!CAN_DROP_TO_LOCAL_USER)(
  "the service's environment (real clawbox run as uid 65534)",
  () => {
    let home: string;
    let model: ScriptedServer;
    let box: RunningService;

    beforeAll(async () => {
      home = mkdtempSync(join(tmpdir(), "clawbox-environ-"));
      model = await startFakeOpenAI();
      writeFileSync(
        join(home, "clawbox.json"),
        JSON.stringify({
          models: {
            primary: "cloud",
            providers: { cloud: { kind: "openai", baseUrl: model.url, model: "fake" } },
          },
        }),
      );
      const service = asUnprivilegedService(CLAWBOX_BIN, ["run"]);
      if (service.uid === LOCAL_USER_UID) {
        chownSync(home, LOCAL_USER_UID, LOCAL_USER_UID);
        chownSync(join(home, "clawbox.json"), LOCAL_USER_UID, LOCAL_USER_UID);
      }
      box = await startService(
        ["--port", "0"],
        { CLAWBOX_HOME: home, CLAWBOX_CONFIG: "", CLAWBOX_TOKEN: TOKEN, HOME: home },
        service.argv,
      );
    }, 90_000);

    afterAll(async () => {
      box?.child.kill("SIGTERM");
      await box?.exited;
      await model?.close();
      if (home) rmSync(home, { recursive: true, force: true });
    });

    it("an owner's exec cannot print the service's /proc/$PPID/environ", async () => {
      model.enqueue(
        openaiToolCall("exec", JSON.stringify({ command: "cat /proc/$PPID/environ; echo rc=$?" })),
        openaiText("done"),
      );
      const response = await fetch(`${box.url}/api/chat`, {
        method: "POST",
        headers: { Authorization: `Bearer ${TOKEN}`, "Content-Type": "application/json" },
        body: JSON.stringify({ message: "show me your environment" }),
      });
      expect(response.status).toBe(200);
      expect(model.requests).toHaveLength(2);
      const toolResult = JSON.stringify(model.requests[1]?.body.messages);
      expect(toolResult).toContain("rc=1");
      expect(toolResult).toMatch(/Permission denied/);
      expect(toolResult).not.toContain(TOKEN);
      expect(toolResult).not.toContain("CLAWBOX_HOME=");
    });
  },
);
