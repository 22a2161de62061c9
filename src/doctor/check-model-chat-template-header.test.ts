import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { CHATML_TEMPLATE, writeTinyGguf } from "../../test/fixtures/tiny-gguf.ts";
import { configSchema } from "../config/index.ts";
import { checkModels } from "./check-model.ts";

const dir = mkdtempSync(join(tmpdir(), "clawbox-doctor-template-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function templateRow(chatTemplate: string | null, mode: "full" | "header") {
  const path = join(dir, `${String(chatTemplate !== null)}-${mode}.gguf`);
  await writeTinyGguf(path, { chatTemplate });
  const config = configSchema.parse({
    models: { primary: "local", providers: { local: { kind: "local", path, threads: 1 } } },
  });
  const rows = await checkModels(config.models, undefined, { chatTemplate: mode });
  return rows.find((row) => row.name === "model local chat template");
}

describe("the chat template row", () => {
  it("in header form (the console's Status page) reads only the GGUF metadata", async () => {
    expect(await templateRow(CHATML_TEMPLATE, "header")).toMatchObject({
      status: "ok",
      message: expect.stringMatching(/^the GGUF carries its own chat template/),
    });
    expect(await templateRow(null, "header")).toMatchObject({
      status: "ok",
      message: expect.stringMatching(/^no chat template in the GGUF: guessed/),
    });
  });

  it("in full form (clawbox doctor) names the wrapper llama.cpp will use", async () => {
    expect((await templateRow(CHATML_TEMPLATE, "full"))?.message).toMatch(
      /\(from the GGUF's chat template\)/,
    );
  }, 60_000);
});
