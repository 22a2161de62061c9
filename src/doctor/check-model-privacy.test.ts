import { describe, expect, it } from "vitest";
import { configSchema } from "../config/index.ts";
import { checkModelPrivacy } from "./check-model-privacy.ts";

const cloud = { kind: "openai", baseUrl: "https://api.example.com/v1", model: "m" };
const local = { kind: "local" };
const message = (models: Record<string, unknown>) =>
  checkModelPrivacy(configSchema.parse({ models }).models).message;

describe("doctor: where the private context can go", () => {
  it("names the cloud fallback, the local-only switch and a cloud primary", () => {
    expect(message({ primary: "local", providers: { local } })).toContain("local only");
    expect(
      message({ primary: "local", fallbacks: ["cloud"], providers: { local, cloud } }),
    ).toContain("falls back to cloud model cloud");
    expect(
      message({
        primary: "local",
        fallbacks: ["cloud"],
        localOnly: true,
        providers: { local, cloud },
      }),
    ).toContain("never called");
    expect(message({ primary: "cloud", providers: { cloud } })).toContain("every turn");
  });
});
