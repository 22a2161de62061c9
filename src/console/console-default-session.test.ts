import { describe, expect, it } from "vitest";
import { configSchema } from "../config/index.ts";
import { createSessionResolver } from "../sessions/index.ts";
import { defaultConsoleSession } from "./api-chat.ts";
import type { ConsoleDeps } from "./console-deps.ts";

const depsOf = (raw: Record<string, unknown>) => {
  const config = configSchema.parse(raw);
  return { config, sessions: createSessionResolver(config.agent) } as unknown as ConsoleDeps;
};

describe("the console's default session", () => {
  it("is the web owner's session, or the main session with directSessionMode main", () => {
    expect(defaultConsoleSession(depsOf({}))).toBe("agent:main:web:direct:owner");
    expect(defaultConsoleSession(depsOf({ agent: { directSessionMode: "main" } }))).toBe(
      "agent:main:main",
    );
  });
});
