/**
 * No RTC (issue 18), model pulls: `clawbox models pull` (the program a user or the
 * first-boot pull service runs) downloads a model over HTTPS from a server whose
 * certificate is first dated in the future, as a box whose clock is behind sees it
 * (CA trusted with NODE_EXTRA_CA_CERTS). It must keep retrying with backoff, say the
 * clock is the likely cause, and finish with a verified file once the certificate is
 * valid (NTP fixed the clock).
 */
import { createHash } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { CLOCK_HINT } from "../../src/system/index.ts";
import { waitUntil } from "../fakes/qq-platform.ts";
import { writeTinyGguf } from "../fixtures/tiny-gguf.ts";
import { startCli } from "../support/spawn-cli.ts";
import { FUTURE_NOT_BEFORE, HAVE_OPENSSL, makeCertificates } from "../support/test-certificates.ts";
import { startTlsFront } from "../support/tls-front.ts";

if (!HAVE_OPENSSL) console.warn("skipping the model-pull no-RTC test: openssl is not installed");

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()?.();
});

describe.skipIf(!HAVE_OPENSSL)("clawbox models pull while the clock is behind (no RTC)", () => {
  it("retries while the certificate is not yet valid, names the clock, and installs the verified model once it is valid", {
    timeout: 90_000,
  }, async () => {
    const dir = mkdtempSync(join(tmpdir(), "clawbox-rtc-pull-"));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const file = join(dir, "tiny.gguf");
    await writeTinyGguf(file);
    const data = readFileSync(file);
    const sha = createHash("sha256").update(data).digest("hex");
    let downloads = 0;
    const server = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      fetch: () => {
        downloads += 1;
        return new Response(data);
      },
    });
    cleanups.push(() => server.stop(true));
    const future = makeCertificates(dir, "future", FUTURE_NOT_BEFORE);
    const front = await startTlsFront(server.port ?? 0, future);
    cleanups.push(() => front.close());
    const manifest = join(dir, "manifest.json");
    writeFileSync(
      manifest,
      JSON.stringify({
        models: [
          {
            name: "tiny-chat",
            kind: "chat",
            quantization: "F32",
            contextLength: 512,
            minRamMb: 64,
            license: "MIT",
            files: [
              { name: "tiny-chat.gguf", url: `${front.url}/tiny`, sha256: sha, size: data.length },
            ],
          },
        ],
      }),
    );
    const home = join(dir, "home");
    const pull = startCli(["models", "pull", "tiny-chat", "--manifest", manifest], {
      CLAWBOX_HOME: home,
      CLAWBOX_CONFIG: "",
      NODE_EXTRA_CA_CERTS: future.cafile,
    });
    cleanups.push(() => {
      pull.child.kill("SIGKILL");
    });

    await waitUntil(
      () => pull.stderr().split(CLOCK_HINT).length - 1 >= 2,
      30_000,
      "two clock warnings",
    );
    expect(pull.stderr()).toMatch(/retrying in \d+ s \(download of .* failed: .*not yet valid/);
    expect(pull.child.exitCode).toBeNull();
    expect(front.refusedHandshakes()).toBeGreaterThanOrEqual(2);
    expect(downloads).toBe(0);

    front.useCertificate(makeCertificates(dir, "current"));
    const result = await pull.done;
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`sha256 ${sha} (verified)`);
    expect(downloads).toBe(1);
    const installed = join(home, "models", "tiny-chat", "tiny-chat.gguf");
    expect(existsSync(installed)).toBe(true);
    expect(createHash("sha256").update(readFileSync(installed)).digest("hex")).toBe(sha);
  });
});
