/** The real channel service with the real QQ adapter against the fake QQ platform, in process. */
import { type ChannelService, createChannelService } from "../../src/channels/index.ts";
import { silentLogger } from "../../src/system/index.ts";
import { createHarness, type Harness } from "../agent/agent-harness.ts";
import { createFakeProvider, type FakeProvider, type FakeScript } from "../fakes/fake-provider.ts";
import { FakeQqPlatform } from "../fakes/qq-platform.ts";

export interface QqRig {
  platform: FakeQqPlatform;
  service: ChannelService;
  harness: Harness;
  fake: FakeProvider;
  close(): Promise<void>;
}

export async function startQqRig(
  options: {
    qq?: Record<string, unknown>;
    heartbeatIntervalMs?: number;
    reply?: (text: string) => string;
    /** The model's whole script (tool calls too); replaces `reply`. */
    script?: FakeScript;
    /** The fake model's window (default 8192: a small one drops low-priority tool schemas). */
    contextWindow?: number;
    /** Extra tools for the agent (memory tools need the harness's store and paths). */
    tools?: Parameters<typeof createHarness>[0]["tools"];
    /** More config (e.g. `agent.owners`). */
    config?: Record<string, unknown>;
  } = {},
): Promise<QqRig> {
  const platform = new FakeQqPlatform({ heartbeatIntervalMs: options.heartbeatIntervalMs }).start();
  const fake = createFakeProvider({
    ...(options.contextWindow ? { contextWindow: options.contextWindow } : {}),
    script:
      options.script ??
      ((request) => {
        const last = request.messages.at(-1);
        const text =
          typeof last?.content === "string" ? last.content : JSON.stringify(last?.content);
        return { text: options.reply ? options.reply(text) : "pong" };
      }),
  });
  const harness = createHarness({
    providers: { fake },
    engine: "real",
    ...(options.tools ? { tools: options.tools } : {}),
    config: {
      ...options.config,
      channels: {
        qq: {
          appId: platform.appId,
          clientSecret: platform.clientSecret,
          apiBase: platform.url,
          tokenUrl: platform.tokenUrl,
          ...options.qq,
        },
      },
    },
  });
  const service = createChannelService({
    db: harness.store.db,
    config: harness.config,
    agent: harness.agent,
    logger: silentLogger,
    workspace: harness.paths.workspace,
  });
  await service.start();
  return {
    platform,
    service,
    harness,
    fake,
    async close() {
      await service.close();
      await platform.stop();
      await harness.close();
    },
  };
}
