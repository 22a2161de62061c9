import { describe, expect, it } from "vitest";
import { importNative, nativeModulePath } from "./native-module.ts";
import { runtimeLayout } from "./runtime-layout.ts";

describe("native packages in a source run", () => {
  it("resolves from node_modules by bare name", () => {
    expect(runtimeLayout().compiled).toBe(false);
    expect(nativeModulePath("onnxruntime-node")).toBe("onnxruntime-node");
  });

  it("imports onnxruntime-node through importNative", async () => {
    const ort = await importNative<typeof import("onnxruntime-node")>("onnxruntime-node");
    expect(typeof ort.InferenceSession.create).toBe("function");
  });
});
