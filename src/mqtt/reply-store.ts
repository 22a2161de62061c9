/**
 * Exactly once out for the bridge's reply events: mqtt.js's outgoing store, kept in
 * SQLite (`mqtt_outgoing`) for the QoS 2 packets of the reply topic and in memory for
 * everything else (discovery, states: republished on every connect anyway).
 *
 * A reply's PUBLISH is stored before mqtt.js writes it, in the same transaction that marks
 * its prompt answered; on PUBREC it is replaced by the PUBREL; on PUBCOMP it is deleted.
 * After a crash or power cut the next process finds what is left and mqtt.js sends it
 * again on connect (PUBLISH or PUBREL, same packet id, persistent session): the broker,
 * which remembers the QoS 2 packet ids of the session, delivers each reply once. A prompt
 * whose reply was never stored is still `received` and is answered after the restart.
 *
 * The packet ids of stored replies stay reserved in the id provider until their PUBCOMP,
 * also across the provider's reset on every connect, so a new message never takes one.
 */
import type { Database } from "bun:sqlite";
import { Readable } from "node:stream";
import type { IClientOptions, IStore } from "mqtt";

type IMessageIdProvider = NonNullable<IClientOptions["messageIdProvider"]>;

// mqtt-packet's types, loosely: what the store reads and writes.
interface Packet {
  cmd: string;
  messageId?: number;
  topic?: string;
  payload?: string | Uint8Array;
  qos?: number;
  [key: string]: unknown;
}
type Done = (error?: Error) => void;
type PacketDone = (error?: Error, packet?: Packet) => void;

interface Row {
  message_id: number;
  packet: string;
}

function encode(packet: Packet): string {
  const payload = packet.payload;
  return JSON.stringify({
    ...packet,
    ...(payload !== undefined
      ? { payload: Buffer.from(payload as Uint8Array | string).toString("base64") }
      : {}),
  });
}

function decode(text: string): Packet {
  const packet = JSON.parse(text) as Packet;
  if (typeof packet.payload === "string") packet.payload = Buffer.from(packet.payload, "base64");
  return packet;
}

export class ReplyStore {
  private readonly memory = new Map<number, Packet>();
  /** Inbox row waiting for its reply's PUBLISH to be stored, by payload text. */
  private readonly pending = new Map<string, number[]>();
  readonly reserved = new Set<number>();

  constructor(
    private readonly db: Database,
    private readonly replyTopic: string,
    /** Marks the prompt answered, inside the transaction that stores its reply. */
    private readonly onReplyStored: (inboxId: number) => void,
  ) {
    for (const row of db.query("SELECT message_id FROM mqtt_outgoing").all() as Row[])
      this.reserved.add(row.message_id);
  }

  /** The next PUBLISH of `payload` on the reply topic answers inbox row `inboxId`. */
  expect(payload: string, inboxId: number): void {
    const queue = this.pending.get(payload) ?? [];
    queue.push(inboxId);
    this.pending.set(payload, queue);
  }

  /** Replies stored and not yet completed (for status and tests). */
  inFlight(): number {
    return (this.db.query("SELECT count(*) AS n FROM mqtt_outgoing").get() as { n: number }).n;
  }

  private durable(packet: Packet): boolean {
    if (packet.messageId === undefined) return false;
    if (packet.cmd === "publish") return packet.topic === this.replyTopic && packet.qos === 2;
    return packet.cmd === "pubrel" && this.reserved.has(packet.messageId);
  }

  /** The mqtt.js store interface over this object. */
  store(): IStore {
    const self = this;
    const store = {
      put(packet: Packet, cb: Done) {
        try {
          self.put(packet);
          cb();
        } catch (error) {
          cb(error instanceof Error ? error : new Error(String(error)));
        }
        return store;
      },
      get(packet: Pick<Packet, "messageId">, cb: PacketDone) {
        const found = self.get(packet.messageId);
        if (found) cb(undefined, found);
        else cb(new Error("missing packet"));
        return store;
      },
      del(packet: Pick<Packet, "messageId">, cb: PacketDone) {
        const found = self.del(packet.messageId);
        if (found) cb(undefined, found);
        else cb(new Error("missing packet"));
        return store;
      },
      createStream() {
        return Readable.from(self.all(), { objectMode: true });
      },
      close(cb: Done) {
        cb();
      },
    };
    return store as unknown as IStore;
  }

  private put(packet: Packet): void {
    const id = packet.messageId;
    if (id === undefined) return;
    if (!this.durable(packet)) {
      this.memory.set(id, packet);
      return;
    }
    const inboxId = this.takePending(packet);
    this.db.transaction(() => {
      this.db
        .query(
          `INSERT INTO mqtt_outgoing (message_id, packet, inbox_id, stored_at) VALUES (?, ?, ?, ?)
           ON CONFLICT (message_id) DO UPDATE SET packet = excluded.packet`,
        )
        .run(id, encode(packet), inboxId ?? null, Date.now());
      if (inboxId !== undefined) this.onReplyStored(inboxId);
    })();
    this.reserved.add(id);
  }

  private takePending(packet: Packet): number | undefined {
    if (packet.cmd !== "publish" || packet.payload === undefined) return undefined;
    const text =
      typeof packet.payload === "string" ? packet.payload : Buffer.from(packet.payload).toString();
    const queue = this.pending.get(text);
    const inboxId = queue?.shift();
    if (queue && queue.length === 0) this.pending.delete(text);
    return inboxId;
  }

  private get(id: number | undefined): Packet | undefined {
    if (id === undefined) return undefined;
    const row = this.db.query("SELECT packet FROM mqtt_outgoing WHERE message_id = ?").get(id) as {
      packet: string;
    } | null;
    return row ? decode(row.packet) : this.memory.get(id);
  }

  private del(id: number | undefined): Packet | undefined {
    if (id === undefined) return undefined;
    const found = this.get(id);
    this.db.query("DELETE FROM mqtt_outgoing WHERE message_id = ?").run(id);
    this.memory.delete(id);
    this.reserved.delete(id);
    return found;
  }

  private all(): Packet[] {
    const rows = this.db
      .query("SELECT message_id, packet FROM mqtt_outgoing ORDER BY stored_at, message_id")
      .all() as Row[];
    return [...rows.map((row) => decode(row.packet)), ...this.memory.values()];
  }
}

/**
 * mqtt.js's id provider with the stored replies' ids kept reserved (mqtt.js clears the
 * provider on every connect, then registers each stored packet as it sends it again).
 */
export function reservingIdProvider(
  inner: IMessageIdProvider,
  reserved: Set<number>,
): IMessageIdProvider {
  const reserveAll = () => {
    for (const id of reserved) inner.register(id);
  };
  reserveAll();
  return {
    allocate: () => inner.allocate(),
    getLastAllocated: () => inner.getLastAllocated(),
    register: (id) => reserved.has(id) || inner.register(id),
    deallocate: (id) => {
      reserved.delete(id);
      inner.deallocate(id);
    },
    clear: () => {
      inner.clear();
      reserveAll();
    },
  };
}
