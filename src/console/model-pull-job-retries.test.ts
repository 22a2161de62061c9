/**
 * The console's download uses the CLI's retries: a server that is not reachable yet
 * (the box just booted, the network or the clock not ready) is tried again with backoff,
 * the Models page says why it waits, and the download finishes once the server answers.
 */
import { createHash } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { waitUntil } from "../../test/fakes/qq-platform.ts";
import { configSchema } from "../config/index.ts";
import type { ManifestModel } from "../models/index.ts";
import { Store } from "../store/index.ts";
import { homePaths, silentLogger } from "../system/index.ts";
import type { ConsoleDeps } from "./console-deps.ts";
import { ModelPullJob } from "./model-pull-job.ts";

const cleanups: (() => void | Promise<void>)[] = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()?.();
});

/** A loopback port nobody listens on (yet). */
async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
  const address = probe.address();
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return typeof address === "object" && address ? address.port : 0;
}

describe("the console's model pull", () => {
  it("retries while the server is unreachable, shows why, and installs the verified file once it answers", async () => {
    const home = mkdtempSync(join(tmpdir(), "clawbox-console-pull-"));
    cleanups.push(() => rmSync(home, { recursive: true, force: true }));
    const data = Buffer.from("clawbox embedding weights ".repeat(1000));
    const port = await freePort();
    const model: ManifestModel = {
      name: "tiny-embed",
      kind: "embedding",
      description: "",
      dimension: 8,
      pooling: "mean",
      maxTokens: 64,
      quantized: false,
      files: [
        {
          name: "model.onnx",
          url: `http://127.0.0.1:${port}/model.onnx`,
          sha256: createHash("sha256").update(data).digest("hex"),
          size: data.length,
        },
      ],
    };
    const paths = homePaths(home, undefined, {});
    const store = Store.open({ path: paths.database });
    cleanups.push(() => store.close());
    const warnings: string[] = [];
    const deps = {
      config: configSchema.parse({}),
      configFile: paths.configFile,
      env: {},
      paths,
      store,
      memory: undefined,
      logger: { ...silentLogger, warn: (message: string) => warnings.push(message) },
      version: "test",
      startedAt: Date.now(),
    } as unknown as ConsoleDeps;
    const job = new ModelPullJob(deps, 50);

    expect(job.start(model)).toBe(true);
    await waitUntil(() => warnings.length >= 2, 10_000, "two retries");
    expect(job.state()).toMatchObject({ state: "running", name: "tiny-embed" });
    expect(job.state().message).toMatch(/retrying in \d+ s/);

    // The server comes up (the network is there now): the next retry downloads.
    const server = Bun.serve({ hostname: "127.0.0.1", port, fetch: () => new Response(data) });
    cleanups.push(() => server.stop(true));
    await waitUntil(() => job.state().state !== "running", 20_000, "the pull to end");
    expect(job.state()).toMatchObject({ state: "done", received: data.length });
    const file = join(paths.modelsDir, "tiny-embed", "model.onnx");
    expect(existsSync(file)).toBe(true);
    expect(readFileSync(file).equals(data)).toBe(true);
  }, 30_000);
});
