/**
 * The scheduler as the runtime sees it: the `cron` tool and job access (available at
 * once, for `clawbox chat` too), and the timers (cron runner, heartbeat) that `clawbox
 * run` starts only after READY so startup does not pay for them.
 */
import type { Agent, ChatRequest, ChatResult } from "../agent/index.ts";
import type {
  AgentConfig,
  ChannelsConfig,
  CronConfig,
  FollowupsConfig,
  HeartbeatConfig,
} from "../config/index.ts";
import { createSessionResolver, type SessionResolver } from "../sessions/index.ts";
import type { Store } from "../store/index.ts";
import type { Logger } from "../system/index.ts";
import type { AgentTool } from "../tools/index.ts";
import { type CronJobs, createCronJobs } from "./cron-jobs.ts";
import { type CronRunner, createCronRunner } from "./cron-runner.ts";
import { CronStore } from "./cron-store.ts";
import { createCronTool } from "./cron-tool.ts";
import { createDelivery, type ProactiveSender, type ProactiveSenders } from "./delivery.ts";
import { createFollowupExtractor, type FollowupExtractor } from "./followup-extractor.ts";
import { FollowupStore } from "./followup-store.ts";
import { createHeartbeat, type Heartbeat } from "./heartbeat.ts";
import { runScheduledTurn } from "./scheduled-turn.ts";

export interface SchedulerDeps {
  /** The sections the scheduler reads, on each use (a reload replaces `agent` and `channels`). */
  config: {
    agent: AgentConfig;
    channels: ChannelsConfig;
    cron: CronConfig;
    followups: FollowupsConfig;
    heartbeat: HeartbeatConfig;
  };
  store: Store;
  workspace: string;
  logger: Logger;
  /** The runtime's session resolver; default: one built from `config.agent`. */
  sessions?: SessionResolver;
}

export interface Scheduler {
  /** The `cron` tool (owner-only; the policy removes it for everyone else). */
  tools: AgentTool[];
  jobs: CronJobs;
  followups: FollowupStore;
  /** Wraps the agent so finished owner turns are checked for follow-ups (when enabled). */
  observe(agent: Agent): Agent;
  /**
   * Starts the cron runner and the heartbeat (after READY). Channel peers are reached
   * through the channel outbox unless `senders.outbox` says otherwise; Home Assistant
   * through `senders.mqtt` (the MQTT bridge, once it runs).
   */
  start(agent: Agent, senders?: ProactiveSenders): void;
  heartbeat(): Heartbeat | undefined;
  /** Stops the timers; resolves when runs in flight have ended (abort them via the agent). */
  close(): Promise<void>;
}

export function createScheduler(deps: SchedulerDeps): Scheduler {
  const { config, store, logger } = deps;
  const sessions = deps.sessions ?? createSessionResolver(config.agent);
  /** Channel peers get proactive messages through the channel outbox (sent by its worker). */
  const outboxSender: ProactiveSender = {
    async send(target, text) {
      const { enqueueProactive } = await import("../channels/index.ts");
      const chatType = target.chatType === "group" ? "group" : "direct";
      const ids = enqueueProactive(
        store.db,
        config.channels,
        { channel: target.channel, chatType, peerId: target.peerId },
        text,
      );
      return { outboxIds: ids };
    },
  };
  const cronStore = new CronStore(store.db);
  const followups = new FollowupStore(store.db, config.followups.maxOpen);
  let runner: CronRunner | undefined;
  let heartbeat: Heartbeat | undefined;
  let extractor: FollowupExtractor | undefined;
  const jobs = createCronJobs(cronStore, config.cron, config.agent.timezone, () => runner?.poke());
  return {
    tools: [createCronTool(jobs, config.agent.timezone)],
    jobs,
    followups,
    observe(agent) {
      if (!config.followups.enabled) return agent;
      const found = createFollowupExtractor({
        agent,
        store: followups,
        sessionStore: store.sessions,
        sessions,
        ...(config.agent.timezone ? { timezone: config.agent.timezone } : {}),
        logger: logger.child("followups"),
      });
      extractor = found;
      return {
        ...agent,
        async chat(request: ChatRequest): Promise<ChatResult> {
          const result = await agent.chat(request);
          found.observe(request, result);
          return result;
        },
      };
    },
    start(agent, senders) {
      const delivery = createDelivery(logger, { outbox: outboxSender, ...senders });
      const runTurn = (turn: Parameters<typeof runScheduledTurn>[2]) =>
        runScheduledTurn(agent, delivery, turn);
      if (config.cron.enabled) {
        runner = createCronRunner({ store: cronStore, config: config.cron, logger, runTurn });
        runner.start();
      }
      if (config.heartbeat.enabled) {
        heartbeat = createHeartbeat({
          config,
          store,
          workspace: deps.workspace,
          logger: logger.child("heartbeat"),
          runTurn,
          activeRuns: () => agent.activeRuns(),
          followups,
          sessions,
        });
        heartbeat.start();
      }
    },
    heartbeat: () => heartbeat,
    async close() {
      await Promise.all([runner?.close(), heartbeat?.close(), extractor?.idle()]);
    },
  };
}
