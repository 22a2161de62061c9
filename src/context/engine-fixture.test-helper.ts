/**
 * Test fixture: a temporary clawbox home with a real SQLite store, a seeded workspace
 * and the default context engine. Used by the context tests only.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type ClawboxConfig, defaultConfig } from "../config/index.ts";
import type { UserMessage } from "../messages/index.ts";
import {
  createFakeProvider,
  type FakeProvider,
  type FakeScript,
} from "../providers/fake-provider.ts";
import type { Provider } from "../providers/index.ts";
import { type SessionRow, Store } from "../store/index.ts";
import { type HomePaths, homePaths } from "../system/index.ts";
import { seedWorkspace } from "../workspace/index.ts";
import type { ContextEngine, DynamicContext, ModelKind } from "./context-engine.ts";
import { createContextEngine } from "./create-context-engine.ts";

export interface Fixture {
  home: string;
  paths: HomePaths;
  store: Store;
  engine: ContextEngine;
  config: ClawboxConfig;
  session(key?: string): SessionRow;
  provider(options?: { contextWindow?: number; script?: FakeScript; model?: string }): FakeProvider;
  turn(
    text: string,
    options?: {
      modelKind?: ModelKind;
      dynamic?: Partial<DynamicContext>;
      session?: SessionRow;
      provider?: Provider;
    },
  ): ReturnType<ContextEngine["assemble"]>;
  close(): void;
}

export function makeFixture(
  options: {
    seed?: boolean;
    config?: (c: ClawboxConfig) => void;
    env?: Record<string, string>;
  } = {},
): Fixture {
  const home = mkdtempSync(join(tmpdir(), "clawbox-ctx-"));
  const config = defaultConfig();
  config.agent.timezone = "Asia/Shanghai";
  options.config?.(config);
  const paths = homePaths(home, undefined, {});
  if (options.seed !== false) seedWorkspace(paths.workspace);
  const store = Store.open({ path: paths.database });
  const engine = createContextEngine({
    config,
    store,
    paths,
    env: options.env ?? { PATH: process.env.PATH ?? "" },
  });
  let defaultSession: SessionRow | undefined;
  const fixture: Fixture = {
    home,
    paths,
    store,
    engine,
    config,
    session(key = "agent:main:cli:direct:owner") {
      return store.sessions.getOrCreate({ sessionKey: key });
    },
    provider(p = {}) {
      return createFakeProvider({
        contextWindow: p.contextWindow ?? 32768,
        script: p.script ?? [{ text: "ok" }],
        ...(p.model ? { model: p.model } : {}),
      });
    },
    turn(text, t = {}) {
      defaultSession = t.session ?? defaultSession ?? fixture.session();
      const session = store.sessions.require(defaultSession.sessionId);
      const pending: UserMessage = { role: "user", content: text, timestamp: Date.now() };
      return engine.assemble(
        {
          session,
          provider: t.provider ?? fixture.provider(),
          modelKind: t.modelKind ?? "local",
          runKind: "interactive",
          tools: [],
          dynamic: {
            channel: "cli",
            chatType: "direct",
            senderId: "cli",
            now: Date.now(),
            ...t.dynamic,
          },
        },
        pending,
      );
    },
    close() {
      engine.dispose?.();
      store.close();
      rmSync(home, { recursive: true, force: true });
    },
  };
  return fixture;
}
