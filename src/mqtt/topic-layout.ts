/**
 * Where everything lives on the broker, derived once from the config: the node id
 * (default: the hostname reduced to [a-zA-Z0-9_-]), the base topic (default
 * `clawbox/<nodeId>`) and the state/command topics under it. Discovery, the bridge
 * and `clawbox mqtt status` all read topics from here, never build them by hand.
 */
import { hostname } from "node:os";
import type { MqttConfig } from "../config/index.ts";

export interface TopicLayout {
  nodeId: string;
  baseTopic: string;
  discoveryPrefix: string;
  /** `online` retained on connect; `offline` as LWT and on clean shutdown. */
  availability: string;
  /** Home Assistant's own birth/last-will topic. */
  haStatus: string;
  prompt: string;
  status: string;
  statusAttributes: string;
  reply: string;
  replyAttributes: string;
  event: string;
  newSession: string;
  compact: string;
  model: string;
  modelSet: string;
  busy: string;
}

/** `host.name` → `host_name`-like id; never empty. */
export function nodeIdFromHostname(name: string): string {
  const cleaned = name.replace(/[^a-zA-Z0-9_-]/g, "");
  return cleaned.length > 0 ? cleaned : "clawbox";
}

export function topicLayout(config: MqttConfig, host: string = hostname()): TopicLayout {
  const nodeId = config.nodeId ?? nodeIdFromHostname(host);
  const base = config.baseTopic ?? `clawbox/${nodeId}`;
  return {
    nodeId,
    baseTopic: base,
    discoveryPrefix: config.discoveryPrefix,
    availability: `${base}/availability`,
    haStatus: `${config.discoveryPrefix}/status`,
    prompt: `${base}/prompt/set`,
    status: `${base}/status`,
    statusAttributes: `${base}/status/attributes`,
    reply: `${base}/reply`,
    replyAttributes: `${base}/reply/attributes`,
    event: `${base}/event`,
    newSession: `${base}/new_session/press`,
    compact: `${base}/compact/press`,
    model: `${base}/model`,
    modelSet: `${base}/model/set`,
    busy: `${base}/busy`,
  };
}

/** The broker URL without user name or password, for logs, status and errors. */
export function displayUrl(url: string): string {
  try {
    const parsed = new URL(url);
    parsed.username = "";
    parsed.password = "";
    return parsed.toString().replace(/\/$/, "");
  } catch {
    return url.replace(/\/\/[^@/]*@/, "//");
  }
}
