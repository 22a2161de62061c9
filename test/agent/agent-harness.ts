/** Builds a real agent over a real SQLite file in a temp home, with a given provider and the test engine. */

import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect } from "vitest";
import type { ProviderSource } from "../../src/agent/index.ts";
import { type Agent, createAgent } from "../../src/agent/index.ts";
import { type ClawboxConfig, configSchema } from "../../src/config/index.ts";
import { type ContextEngine, createContextEngine } from "../../src/context/index.ts";
import type { Message } from "../../src/messages/index.ts";
import { Store } from "../../src/store/index.ts";
import { type HomePaths, homePaths, silentLogger } from "../../src/system/index.ts";
import type { AgentTool } from "../../src/tools/index.ts";
import { createTestContextEngine, type TestContextEngine } from "../fakes/test-context-engine.ts";

export interface Harness {
  agent: Agent;
  store: Store;
  paths: HomePaths;
  config: ClawboxConfig;
  engine: ContextEngine | TestContextEngine;
  /** Messages on the active branch of the session under `key`. */
  messages(key: string): Message[];
  close(): Promise<void>;
}

/** Every tool call on the branch has exactly one result, and the branch ends with an assistant message. */
export function expectRepaired(messages: Message[]): void {
  const calls = messages.flatMap((m) =>
    m.role === "assistant" ? m.content.filter((b) => b.type === "toolCall").map((b) => b.id) : [],
  );
  const results = messages.flatMap((m) => (m.role === "toolResult" ? [m.toolCallId] : []));
  expect([...results].sort()).toEqual([...calls].sort());
  expect(messages.at(-1)?.role).toBe("assistant");
}

/** A chat request from the owner on the CLI, in their main session. */
export function ownerRequest(text: string) {
  return {
    sessionKey: "agent:main:cli:direct:owner",
    text,
    channel: "cli",
    senderId: "cli",
    chatType: "direct" as const,
  };
}

export function buildConfig(raw: Record<string, unknown>): ClawboxConfig {
  return configSchema.parse(raw);
}

export function createHarness(options: {
  /** Default: built from config by the providers area. */
  providers?: ProviderSource;
  config?: Record<string, unknown>;
  /** Extra tools, or a builder for tools that need the harness's store and paths (memory). */
  tools?:
    | AgentTool[]
    | ((deps: { store: Store; paths: HomePaths; config: ClawboxConfig }) => AgentTool[]);
  /** Default: the test engine; "real" uses the context area's default engine. */
  engine?: "real" | ((store: Store) => ContextEngine);
}): Harness {
  const home = mkdtempSync(join(tmpdir(), "clawbox-agent-"));
  const paths = homePaths(home, undefined, {});
  mkdirSync(paths.workspace, { recursive: true });
  const config = buildConfig({
    models: { primary: "fake", fallbacks: [], providers: {} },
    ...options.config,
  });
  const store = Store.open({ path: paths.database });
  const engine =
    options.engine === "real"
      ? createContextEngine({ config, store, paths, watch: false })
      : options.engine
        ? options.engine(store)
        : createTestContextEngine(store);
  const agent = createAgent({
    config,
    store,
    paths,
    logger: silentLogger,
    providers: options.providers,
    engine,
    tools:
      typeof options.tools === "function" ? options.tools({ store, paths, config }) : options.tools,
  });
  return {
    agent,
    store,
    paths,
    config,
    engine,
    messages(key) {
      const session = store.sessions.byKey(key);
      if (!session) return [];
      return store.transcript
        .branch(session.sessionId)
        .flatMap((e) => (e.type === "message" ? [e.message] : []));
    },
    async close() {
      await agent.close();
      engine.dispose?.();
      store.close();
      rmSync(home, { recursive: true, force: true });
    },
  };
}
