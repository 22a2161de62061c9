import { describe, expect, it } from "vitest";
import { formatIssue, validateConfig } from "./index.ts";

const messages = (raw: unknown) => validateConfig(raw, "clawbox.json").errors.map(formatIssue);

describe("config errors in plain words", () => {
  it("says what a value must be, with the right article, and no zod jargon", () => {
    const out = messages({ server: { allowedHosts: "box.local", port: "eighty" } });
    expect(out).toContain("clawbox.json: server.allowedHosts: must be an array, not a string");
    expect(out).toContain("clawbox.json: server.port: must be a number, not a string");
    for (const line of out) {
      expect(line).not.toMatch(/Invalid input|received|set it to a/);
    }
  });

  it("keeps a check's own message and adds no '(use a valid regex)' after it", () => {
    const out = messages({ mqtt: { url: "http://broker" } });
    expect(out).toEqual(["clawbox.json: mqtt.url: must be mqtt://host:port or mqtts://host:port"]);
  });

  it("names bounds and choices plainly", () => {
    const out = messages({ server: { port: 0, allowedHosts: [""] } });
    expect(out).toContain("clawbox.json: server.port: must be at least 1");
    expect(out).toContain("clawbox.json: server.allowedHosts.0: must not be empty");
  });
});
