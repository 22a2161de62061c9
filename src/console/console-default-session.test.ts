import { describe, expect, it } from "vitest";
import { configSchema } from "../config/index.ts";
import { defaultConsoleSession } from "./api-chat.ts";

describe("the console's default session", () => {
  it("is the web owner's session, or the main session with directSessionMode main", () => {
    const perPeer = configSchema.parse({}).agent;
    expect(defaultConsoleSession(perPeer)).toBe("agent:main:web:direct:owner");
    const shared = configSchema.parse({ agent: { directSessionMode: "main" } }).agent;
    expect(defaultConsoleSession(shared)).toBe("agent:main:main");
  });
});
