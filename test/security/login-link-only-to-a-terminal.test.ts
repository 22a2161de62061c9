/**
 * Attack 8 of issue 37: the one-time console login link that `clawbox run` printed went
 * to the journal, where it was an owner session for whoever read the journal first. The
 * live link goes only to a terminal; under systemd (or into a pipe or file) the service
 * prints how to get one instead (`clawbox console url`).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { HAVE_PYTHON_PTY, ptyCli } from "../support/pty-cli.ts";
import { startService } from "../support/run-service.ts";

if (!HAVE_PYTHON_PTY)
  console.warn("python3's pty module is absent: the terminal tests are skipped");

const homes: string[] = [];
const newHome = () => {
  const home = mkdtempSync(join(tmpdir(), "clawbox-link-tty-"));
  homes.push(home);
  return { CLAWBOX_HOME: home, CLAWBOX_CONFIG: "" };
};
afterAll(() => {
  for (const home of homes) rmSync(home, { recursive: true, force: true });
});

const HOW = "run `clawbox console url` as the service's user";

describe("the one-time login link at start", () => {
  it("is not written to a pipe (the journal, a log file): the line says how to get one", async () => {
    const box = await startService(["--port", "0"], newHome());
    try {
      await box.waitFor(HOW, 20_000);
      expect(box.output()).not.toContain("ticket=");
      expect(box.output()).not.toContain("console: open");
    } finally {
      box.child.kill("SIGTERM");
      await box.exited;
    }
  }, 60_000);

  it.skipIf(!HAVE_PYTHON_PTY)(
    "is printed to a terminal, for http://127.0.0.1 only",
    async () => {
      const cli = ptyCli(["run", "--port", "0"], newHome());
      try {
        await cli.waitFor(/console: open http:\/\/127\.0\.0\.1:\d+\/console\/login\?ticket=\S+/);
        expect(cli.output()).not.toContain(HOW);
        expect(cli.output()).not.toContain("localhost");
      } finally {
        cli.ctrlC();
        await cli.exited;
      }
    },
    60_000,
  );

  it.skipIf(!HAVE_PYTHON_PTY)(
    "is not printed under systemd, even when its output is a terminal",
    async () => {
      const cli = ptyCli(["run", "--port", "0"], {
        ...newHome(),
        INVOCATION_ID: "0123456789abcdef0123456789abcdef",
      });
      try {
        await cli.waitFor(HOW, 0, 20_000);
        expect(cli.output()).not.toContain("ticket=");
      } finally {
        cli.ctrlC();
        await cli.exited;
      }
    },
    60_000,
  );
});
