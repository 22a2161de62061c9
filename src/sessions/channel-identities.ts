/**
 * Channel ids and the identities their senders have. A channel id names one connection
 * (`wecom-app`, `wecom-bot`); an identity names the namespace of its users' ids
 * (`wecom`): a WeCom user is `wecom:USERID` whichever WeCom channel they wrote from, and
 * that is what `agent.owners` lists. Turning a sender back into a peer to send to goes
 * through `peerOfSender`, so a channel id and an identity can never be mixed up again.
 */

/** "platform": peers are the platform's user or group ids; "named": names the surface chose. */
export type PeerKind = "platform" | "named";

/** How a proactive message (reminder, heartbeat news) reaches someone on a channel. */
export type DeliveryKind = "outbox" | "mqtt" | "session";

export interface ChannelIdentity {
  identity: string;
  channels: readonly string[];
  peers: PeerKind;
  /**
   * "outbox": the channel outbox sends it; "mqtt": an event to Home Assistant; "session":
   * stored in the session, where the owner reads it (console, `clawbox sessions`).
   */
  delivery: DeliveryKind;
  /**
   * Its senders are the household speaking in a room (Home Assistant's voice satellites):
   * one principal of its own, neither the owner nor a stranger (principal.ts `HOUSEHOLD`).
   */
  household?: boolean;
}

export const CHANNEL_IDENTITIES: readonly ChannelIdentity[] = [
  { identity: "qq", channels: ["qq"], peers: "platform", delivery: "outbox" },
  {
    identity: "wecom",
    channels: ["wecom-app", "wecom-bot"],
    peers: "platform",
    delivery: "outbox",
  },
  { identity: "web", channels: ["web"], peers: "named", delivery: "session" },
  { identity: "cli", channels: ["cli"], peers: "named", delivery: "session" },
  { identity: "mqtt", channels: ["mqtt"], peers: "named", delivery: "mqtt" },
  /** Home Assistant's Assist over Wyoming: peers are rooms (src/wyoming). */
  {
    identity: "wyoming",
    channels: ["wyoming"],
    peers: "named",
    delivery: "session",
    household: true,
  },
  { identity: "openai-api", channels: ["openai-api"], peers: "named", delivery: "session" },
  /** Sessions read from a JSONL file (`clawbox sessions import`). */
  { identity: "import", channels: ["import"], peers: "named", delivery: "session" },
];

/** The identity of a channel id or identity; an unknown channel is its own identity. */
export function identityOf(channel: string): ChannelIdentity {
  return (
    CHANNEL_IDENTITIES.find((i) => i.channels.includes(channel) || i.identity === channel) ?? {
      identity: channel,
      channels: [channel],
      peers: "platform",
      delivery: "outbox",
    }
  );
}

/** `wecom-bot` + `USERID` → `wecom:USERID`: the id `agent.owners` and `allowFrom` use. */
export function senderAddress(channel: string, platformId: string): string {
  return `${identityOf(channel).identity}:${platformId}`;
}

/** `wecom:USERID` → { identity: "wecom", id: "USERID" }; a bare id ("cli") has no id part. */
export function parseSenderAddress(sender: string): { identity: string; id?: string } {
  const colon = sender.indexOf(":");
  if (colon <= 0) return { identity: sender };
  return { identity: sender.slice(0, colon), id: sender.slice(colon + 1) };
}

/**
 * The platform id to send to for `sender` on `channel` (`wecom:U1` on `wecom-app` → `U1`),
 * or undefined when the sender is not a user of that channel's identity.
 */
export function peerOfSender(sender: string | undefined, channel: string): string | undefined {
  if (!sender) return undefined;
  const parsed = parseSenderAddress(sender);
  if (!parsed.id) return undefined;
  return parsed.identity === identityOf(channel).identity ? parsed.id : undefined;
}
