/**
 * The channels of a running `clawbox run`: loads each enabled channel's adapter (after
 * READY), recovers what a crash left (unanswered inbox rows, outbox rows caught
 * mid-send), connects, and runs the outbox worker. Also the way other areas deliver a
 * proactive message: `deliver(target, text)` stores it in the outbox and wakes the worker.
 * `reload()` applies an edited `channels` section without a restart: a channel whose own
 * section changed is stopped and started again with it; the others keep running.
 * Every reason a channel reports (its state, an outbox row's failure) is redacted here,
 * before it is stored: a platform that echoes the credentials it was sent into its error
 * cannot put them on `/health`, the console, `channels status` or `doctor`.
 */
import type { Database } from "bun:sqlite";
import type { AgentConfig, ChannelsConfig, ToolsConfig } from "../config/index.ts";
import { errorMessage } from "../errors/index.ts";
import { PairingRequests } from "../pairing/index.ts";
import { createSessionResolver, type SessionResolver } from "../sessions/index.ts";
import { collectSecrets, type Logger } from "../system/index.ts";
import type { ChannelAdapter, ChannelHost, ChannelState, ChannelTarget } from "./channel.ts";
import { CHANNELS, channelDefinition } from "./channel-registry.ts";
import {
  type ChannelStatus,
  readChannelStatus,
  touchChannel,
  writeChannelState,
} from "./channel-status.ts";
import { type ChannelAgent, Dispatcher } from "./dispatcher.ts";
import { type OutboxWorker, startOutboxWorker } from "./outbox-worker.ts";
import { noticePairingRequest } from "./pairing-notice.ts";
import { enqueueProactive } from "./proactive.ts";

export interface ChannelServiceDeps {
  db: Database;
  /**
   * The sections the channels read; a reload replaces `channels` and `agent` in this
   * object, so they are read on each use.
   */
  config: { channels: ChannelsConfig; agent: AgentConfig; tools: ToolsConfig };
  agent: ChannelAgent;
  /** The runtime's session resolver; default: one built from `config.agent`. */
  sessions?: SessionResolver;
  logger: Logger;
  workspace: string;
  /** The model accepts images (inbound images are attached, not only described). */
  vision?: boolean;
  /** Pending pairing codes (default: the ones in `db`, with the default limits). */
  pairing?: PairingRequests;
}

export interface ChannelService {
  /** Loads and connects every enabled channel. Never rejects (errors become states). */
  start(): Promise<void>;
  status(): ChannelStatus[];
  /** Handles `POST /channels/<id>/webhook`; undefined when that channel has no webhook. */
  webhook(channel: string, request: Request): Promise<Response> | undefined;
  /** Stores a proactive message for (channel, peer) and wakes the sender; returns outbox ids. */
  deliver(target: ChannelTarget, text: string): number[];
  /**
   * Applies the `channels` section now in `config` (the same object the service was
   * made with, changed in place by the caller): restarts the channels whose section
   * changed, starts new ones, stops removed or disabled ones. Never rejects.
   */
  reload(): Promise<void>;
  close(): Promise<void>;
}

export function createChannelService(deps: ChannelServiceDeps): ChannelService {
  const { db, config, logger } = deps;
  const adapters = new Map<string, ChannelAdapter>();
  /** Each channel's section as last started (JSON), to see what a reload changed. */
  const started = new Map<string, string>();
  const sectionText = (id: string) =>
    JSON.stringify(channelDefinition(id)?.section(config.channels) ?? null);
  let worker: OutboxWorker | undefined;
  /**
   * The logger's redaction (every secret of the config, those saved from the console
   * since included) plus the channels' own credentials as they are now.
   */
  const redactReason = (text: string): string =>
    logger.redact(text, collectSecrets(config.channels));
  const deliver = (target: ChannelTarget, text: string): number[] => {
    const ids = enqueueProactive(db, config.channels, target, text);
    worker?.wake();
    return ids;
  };
  const pairingRequests = deps.pairing ?? new PairingRequests(db);
  const dispatcher = new Dispatcher({
    db,
    agent: deps.agent,
    tools: config.tools,
    sessions: deps.sessions ?? createSessionResolver(config.agent),
    logger: logger.child("dispatch"),
    onReplies: () => worker?.wake(),
    attachments: { vision: deps.vision ?? false },
    workspace: deps.workspace,
    pairing: {
      requests: pairingRequests,
      requested: (request, waiting, fresh) =>
        noticePairingRequest(
          {
            requests: pairingRequests,
            owners: () => config.agent.owners,
            channels: () => config.channels,
            deliver,
            logger,
          },
          request,
          waiting,
          fresh,
        ),
    },
  });

  const hostFor = (id: string): ChannelHost => {
    const log = logger.child(id);
    return {
      logger: log,
      async receive(message) {
        try {
          touchChannel(db, id);
          return dispatcher.receive(message);
        } catch (error) {
          log.error("could not store an inbound message", {
            error: errorMessage(error),
          });
          throw error;
        }
      },
      setState(state: ChannelState, reason?: string) {
        writeChannelState(db, id, state, reason === undefined ? undefined : redactReason(reason));
        if (state === "connected") worker?.wake();
      },
      touch() {
        touchChannel(db, id);
      },
    };
  };

  /** `restart`: a reload (no crash to recover from; a send may be in flight right now). */
  const startOne = async (id: string, restart = false): Promise<void> => {
    const definition = channelDefinition(id);
    started.set(id, sectionText(id));
    const settings = definition?.settings(config.channels);
    if (!definition || !settings) return;
    const host = hostFor(id);
    host.setState("starting");
    try {
      const adapter = await definition.load({
        channels: config.channels,
        logger: host.logger,
        workspace: deps.workspace,
      });
      dispatcher.register(id, { ...settings, adapter });
      if (!restart) {
        const recovered = dispatcher.outbox.recover(id, settings.capabilities);
        if (recovered.resumed + recovered.failed > 0)
          host.logger.info("outbox recovered", recovered);
      }
      adapters.set(id, adapter);
      const unanswered = restart ? 0 : dispatcher.recover(id);
      if (unanswered > 0)
        host.logger.info("answering messages left from before a restart", { unanswered });
      await adapter.start(host);
      worker?.wake();
    } catch (error) {
      const reason = errorMessage(error);
      host.setState("error", reason);
      host.logger.error("channel failed to start", { reason });
    }
  };

  return {
    async start() {
      for (const definition of CHANNELS) {
        if (!definition.settings(config.channels))
          writeChannelState(db, definition.id, "disabled", undefined);
      }
      worker = startOutboxWorker(
        dispatcher.outbox,
        () => adapters,
        logger.child("outbox"),
        redactReason,
      );
      await Promise.all(CHANNELS.map((c) => startOne(c.id)));
    },
    status: () => readChannelStatus(db, config.channels),
    webhook(channel, request) {
      const handler = adapters.get(channel)?.webhook;
      return handler ? handler(request) : undefined;
    },
    deliver,
    async reload() {
      const changed = CHANNELS.filter((c) => started.get(c.id) !== sectionText(c.id));
      const wasRunning = new Set(changed.filter((c) => adapters.has(c.id)).map((c) => c.id));
      for (const { id } of changed) {
        const running = adapters.get(id);
        adapters.delete(id);
        if (running) {
          logger.info("channel settings changed; restarting it", { channel: id });
          await running.stop().catch(() => undefined);
          writeChannelState(db, id, "stopped", "settings changed");
        }
        if (!channelDefinition(id)?.settings(config.channels)) {
          started.set(id, sectionText(id));
          writeChannelState(db, id, "disabled", undefined);
        }
      }
      await Promise.all(changed.map((c) => startOne(c.id, wasRunning.has(c.id))));
    },
    async close() {
      await worker?.stop();
      await Promise.allSettled([...adapters.values()].map((a) => a.stop()));
      await dispatcher.drain();
      for (const id of adapters.keys()) writeChannelState(db, id, "stopped", undefined);
    },
  };
}
