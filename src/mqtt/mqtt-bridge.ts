/**
 * The Home Assistant bridge: publishes discovery and state, turns prompts and button
 * presses into agent turns in the MQTT session, and publishes each outcome as a reply
 * or error event (the turns: mqtt-turns.ts). Prompts run as the sender
 * `mqtt:home-assistant` (a stranger unless listed in `agent.owners`); the agent queues
 * them per session. The model select picks only local models unless that sender is an
 * owner (model-choice.ts). Guarantees: `start`
 * returns before the broker answers and never throws; a bad payload gets an `error`
 * event, never an exception; no secret is published or logged. A prompt the broker saw
 * acknowledged is answered exactly once, across crashes and power cuts: it is stored
 * before its PUBACK (prompt-inbox.ts), the session is persistent, and its reply event
 * goes out at QoS 2 from a durable store (reply-store.ts).
 */
import { Database } from "bun:sqlite";
import type { MqttClient } from "mqtt";
import type { Agent } from "../agent/index.ts";
import type { AgentConfig, ModelsConfig, MqttConfig } from "../config/index.ts";
import { toClawboxError } from "../errors/index.ts";
import { z } from "../schema/index.ts";
import { createSessionResolver, type SessionResolver } from "../sessions/index.ts";
import { MIGRATIONS } from "../store/index.ts";
import type { Logger } from "../system/index.ts";
import { type ConnectionState, type MqttBridgeStatus, writeStatusFile } from "./bridge-status.ts";
import { deviceIdentifier, discoveryEntities, discoveryWildcard } from "./discovery.ts";
import { chooseModelOverMqtt } from "./model-choice.ts";
import { type Backoff, DEFAULT_BACKOFF, openConnection } from "./mqtt-connection.ts";
import { createMqttTurns } from "./mqtt-turns.ts";
import { PromptInbox } from "./prompt-inbox.ts";
import { parsePromptPayload } from "./prompt-payload.ts";
import { ReplyStore, reservingIdProvider } from "./reply-store.ts";
import { displayUrl, topicLayout } from "./topic-layout.ts";

export interface MqttBridgeDeps {
  /**
   * The sections the bridge reads: its own, the agent's (owners, sessions) and the
   * models (the select's options; read on each choice, a reload replaces them).
   */
  config: { mqtt: MqttConfig; agent: AgentConfig; models: Pick<ModelsConfig, "providers"> };
  agent: Pick<Agent, "chat" | "primaryModel" | "selectModel">;
  /** The runtime's session resolver; default: one built from `config.agent`. */
  sessions?: SessionResolver;
  logger: Logger;
  version: string;
  /** Where `clawbox mqtt status` reads the state; omitted in unit tests. */
  statusFile?: string;
  /** For the default node id (default: os.hostname()). */
  hostname?: string;
  backoff?: Backoff;
  /**
   * The box's database: prompts and replies in flight survive a restart there. Unit tests
   * may leave it out (a private in-memory database: nothing survives).
   */
  db?: Database;
}

/** The two tables the bridge keeps state in, in a private in-memory database. */
function memoryDatabase(): Database {
  const db = new Database(":memory:");
  for (const m of MIGRATIONS) if (m.version === 400 || m.version === 440) db.run(m.sql);
  return db;
}

export interface MqttBridge {
  /** Loads the mqtt package and starts connecting; resolves without waiting for the broker. */
  start(): Promise<void>;
  status(): MqttBridgeStatus;
  /**
   * Publishes a reminder, follow-up or heartbeat result for Home Assistant as a `notify`
   * event (with `session_key`): `accepted` once the broker acknowledged it, not when it
   * has not within `NOTIFY_ACK_MS` (the client still sends it when the broker comes
   * back); undefined when the bridge is not running.
   */
  notify(text: string, sessionKey?: string): Promise<{ accepted: boolean } | undefined>;
  /** Resolves when no turn started by MQTT is running. */
  idle(): Promise<void>;
  /** Publishes `offline` (retained) and disconnects. */
  close(): Promise<void>;
}

/** How long a reminder's `notify` event waits for the broker's PUBACK before it is "not confirmed yet". */
const NOTIFY_ACK_MS = 10_000;

const identifiers = z.union([z.array(z.unknown()), z.string()]);
/** A retained discovery config, full or abbreviated (`dev`/`ids`) keys. */
const retainedConfig = z.object({
  device: z.optional(z.object({ identifiers })),
  dev: z.optional(z.object({ ids: identifiers })),
});

/** True when a retained discovery payload names `identifier` among its device identifiers. */
function isOurDevice(payload: Buffer, identifier: string): boolean {
  let raw: unknown;
  try {
    raw = JSON.parse(payload.toString("utf8"));
  } catch {
    return false;
  }
  const parsed = retainedConfig.safeParse(raw);
  if (!parsed.success) return false;
  const ids = parsed.data.device?.identifiers ?? parsed.data.dev?.ids;
  return Array.isArray(ids) ? ids.includes(identifier) : ids === identifier;
}

export function createMqttBridge(deps: MqttBridgeDeps): MqttBridge {
  const { config, agent, logger } = deps;
  const mqtt = config.mqtt;
  const topics = topicLayout(mqtt, deps.hostname);
  const clientId = mqtt.clientId ?? `clawbox-${topics.nodeId}`;
  const sessions = deps.sessions ?? createSessionResolver(config.agent);
  // `mqtt.sessionKey` was checked when the config was loaded (config/cross-checks.ts).
  const defaultSession = mqtt.sessionKey ?? sessions.defaultSession("mqtt", false);
  const modelIds = Object.keys(config.models.providers);
  const entities = discoveryEntities({ topics, version: deps.version, modelIds });
  const current = new Set(entities.map((e) => e.topic));
  const db = deps.db ?? memoryDatabase();
  const inbox = new PromptInbox(db);
  const replies = new ReplyStore(db, topics.event, (id) => inbox.setState(id, "answered"));
  let client: MqttClient | undefined;
  let closing = false;
  const state: MqttBridgeStatus = {
    pid: process.pid,
    broker: displayUrl(mqtt.url),
    clientId,
    state: "connecting",
    since: Date.now(),
    connects: 0,
    entities: entities.map((e) => e.topic),
    removed: [],
    busy: false,
    prompts: { received: 0, rejected: 0, replied: 0, failed: 0 },
    updatedAt: Date.now(),
  };

  const save = () => {
    state.updatedAt = Date.now();
    if (!deps.statusFile) return;
    try {
      writeStatusFile(deps.statusFile, state);
    } catch (error) {
      logger.warn("cannot write the MQTT status file", { error: toClawboxError(error).message });
    }
  };

  const setState = (next: ConnectionState, error?: string) => {
    if (state.state !== next) {
      state.state = next;
      state.since = Date.now();
      if (next === "connected") logger.info(`connected to ${state.broker}`);
      else if (next !== "stopped") {
        logger.warn(`broker ${state.broker}: ${next}`, error ? { error } : undefined);
      }
    }
    if (error) state.lastError = error;
    save();
  };

  const publish = (topic: string, payload: string, retain = false) => {
    if (!client || closing) return;
    client.publish(topic, payload, { qos: 1, retain }, (error) => {
      if (error) logger.warn(`publish to ${topic} failed`, { error: error.message });
    });
  };
  const publishJson = (topic: string, value: unknown, retain = false) =>
    publish(topic, JSON.stringify(value), retain);

  const publishDiscovery = () => {
    for (const entity of entities) publishJson(entity.topic, entity.config, true);
    state.discoveryPublishedAt = Date.now();
    save();
  };

  /** The event answering a stored prompt: kept in the reply store until the broker confirms it. */
  const publishStoredReply = (payload: string, inboxId: number) => {
    // Not published while closing: the prompt stays `received` and is answered after the
    // restart. Once stored, the reply goes out even if the broker is away right now.
    if (!client || closing) return;
    replies.expect(payload, inboxId);
    client.publish(topics.event, payload, { qos: 2 }, (error) => {
      if (error) logger.warn("reply event not confirmed yet", { error: error.message });
    });
  };

  const sessionKeyOf = (session: string | undefined) =>
    session ? sessions.resolve(session, "mqtt") : defaultSession;

  const turns = createMqttTurns({
    agent,
    logger,
    topics,
    status: state,
    out: { publish, publishJson, publishStoredReply, save },
    sessionKeyOf,
    closing: () => closing,
  });

  /** Runs before the PUBACK: the prompt is stored (or known) when the broker forgets it. */
  const onPrompt = (payload: Buffer, packet: { messageId?: number; dup: boolean }) => {
    const parsed = parsePromptPayload(payload);
    if (!parsed.ok) {
      state.prompts.received++;
      state.prompts.rejected++;
      logger.warn("MQTT prompt rejected", { reason: parsed.reason });
      turns.sendError(parsed.reason, parsed.id !== undefined ? { id: parsed.id } : {});
      save();
      return;
    }
    const recorded = inbox.record({
      ...(packet.messageId !== undefined ? { packetId: packet.messageId } : {}),
      dup: packet.dup,
      payload,
      text: parsed.prompt,
      ...(parsed.session ? { session: parsed.session } : {}),
      ...(parsed.id !== undefined ? { promptId: parsed.id } : {}),
    });
    if (!recorded.stored) {
      logger.debug("the broker sent a stored prompt again; not answered twice", {
        packetId: packet.messageId,
      });
      return;
    }
    state.prompts.received++;
    turns.enqueue([
      {
        id: recorded.id,
        text: parsed.prompt,
        receivedAt: Date.now(),
        ...(parsed.session ? { session: parsed.session } : {}),
        ...(parsed.id !== undefined ? { promptId: parsed.id } : {}),
      },
    ]);
  };

  /** Home Assistant's model select: local models only unless its sender is an owner. */
  const onModel = (payload: Buffer) => {
    const refusal = chooseModelOverMqtt(payload.toString("utf8").trim(), {
      config,
      agent,
      modelIds,
      logger,
    });
    if (refusal) turns.sendError(refusal, { command: "select_model" });
    publish(topics.model, agent.primaryModel(), true);
  };

  /** Clears a retained discovery config of this device that the current version no longer has. */
  const onDiscoveryConfig = (topic: string, payload: Buffer) => {
    if (current.has(topic) || payload.byteLength === 0) return;
    if (!isOurDevice(payload, deviceIdentifier(topics.nodeId))) return;
    publish(topic, "", true);
    if (!state.removed.includes(topic)) state.removed.push(topic);
    logger.info(`removed stale Home Assistant entity ${topic}`);
    save();
  };

  const onMessage = (
    topic: string,
    payload: Buffer,
    packet: { messageId?: number; dup: boolean },
  ) => {
    state.lastMessageAt = Date.now();
    try {
      if (topic === topics.prompt) onPrompt(payload, packet);
      else if (topic === topics.newSession)
        turns.run("/new", defaultSession, { command: "new_session" });
      else if (topic === topics.compact)
        turns.run("/compact", defaultSession, { command: "compact" });
      else if (topic === topics.modelSet) onModel(payload);
      else if (topic === topics.haStatus) {
        if (payload.toString("utf8").trim() === "online") {
          logger.info("Home Assistant is online: publishing discovery again");
          publishDiscovery();
          publish(topics.availability, "online", true);
          turns.publishStates();
        }
      } else if (topic.startsWith(`${topics.discoveryPrefix}/`)) onDiscoveryConfig(topic, payload);
    } catch (error) {
      logger.error(`MQTT message on ${topic} failed`, { error: toClawboxError(error).message });
    }
  };

  const onConnect = () => {
    state.connects++;
    setState("connected");
    const c = client;
    if (!c) return;
    c.subscribe(
      [
        topics.prompt,
        topics.newSession,
        topics.compact,
        topics.modelSet,
        topics.haStatus,
        discoveryWildcard(topics),
      ],
      { qos: 1 },
      (error) => {
        if (error) logger.warn("MQTT subscribe failed", { error: error.message });
      },
    );
    publishDiscovery();
    publish(topics.availability, "online", true);
    turns.publishStates();
  };

  return {
    async start() {
      save();
      try {
        client = await openConnection({
          config: mqtt,
          clientId,
          availabilityTopic: topics.availability,
          backoff: deps.backoff ?? DEFAULT_BACKOFF,
          handlers: { onConnect, onState: setState, onMessage },
          session: {
            outgoingStore: replies.store(),
            messageIdProvider: (unique) => reservingIdProvider(unique, replies.reserved),
          },
        });
        // Prompts a crash left stored but unanswered, in the order they came.
        const left = inbox.unanswered();
        if (left.length > 0) {
          logger.info("answering prompts left from before a restart", { prompts: left.length });
          turns.enqueue(left, true);
        }
        if (closing) await client.endAsync(true);
      } catch (error) {
        setState("disconnected", toClawboxError(error).message);
      }
    },
    status: () => ({ ...state, prompts: { ...state.prompts }, removed: [...state.removed] }),
    async notify(text, sessionKey) {
      const c = client;
      if (!c || closing) return undefined;
      const payload = JSON.stringify({
        event_type: "notify",
        text,
        ...(sessionKey ? { session_key: sessionKey } : {}),
      });
      const acked = new Promise<boolean>((resolve) => {
        c.publish(topics.event, payload, { qos: 1 }, (error) => {
          if (error) logger.warn(`publish to ${topics.event} failed`, { error: error.message });
          resolve(!error);
        });
      });
      return { accepted: await Promise.race([acked, Bun.sleep(NOTIFY_ACK_MS).then(() => false)]) };
    },
    idle: () => turns.idle(),
    async close() {
      if (closing) return;
      const c = client;
      if (c?.connected) {
        try {
          // Bounded: a broker that just died still looks connected, and its PUBACK never comes.
          await Promise.race([
            c.publishAsync(topics.availability, "offline", { qos: 1, retain: true }),
            Bun.sleep(2000),
          ]);
        } catch (error) {
          logger.warn("cannot publish offline", { error: toClawboxError(error).message });
        }
      }
      closing = true;
      try {
        // A clean DISCONNECT when connected; without a broker, or when it does not answer
        // within 2 s, drop the socket (queued QoS 1 messages would otherwise wait forever).
        // mqtt.js can leave endAsync pending (e.g. mid-reconnect), so neither wait is unbounded.
        const end = (force: boolean) =>
          c
            ? Promise.race([c.endAsync(force).then(() => true), Bun.sleep(2000).then(() => false)])
            : Promise.resolve(true);
        if (!c?.connected || !(await end(false))) await end(true);
      } catch (error) {
        logger.warn("MQTT disconnect failed", { error: toClawboxError(error).message });
      }
      setState("stopped");
    },
  };
}
