/**
 * Where `clawbox run` listens (docs/SECURITY.md, "The console's port"). On a loopback
 * host the port is held on BOTH loopback families, 127.0.0.1 and ::1: a browser may
 * resolve `localhost` to either, and a local user holding the other one would serve
 * pages in the console's own origin. If the twin is taken, start is refused, naming the
 * process. Under systemd the port comes from `clawbox.socket` (socket activation,
 * `LISTEN_FDS`): systemd holds it across restarts, so no one else can take it while the
 * service restarts. Bun.serve cannot serve an inherited socket, so those connections are
 * passed, byte for byte, to the same server listening on a unix socket in the home.
 */
import { rmSync } from "node:fs";
import type { Server as NetServer, Socket } from "node:net";
import { join } from "node:path";
import type { Hono } from "hono";
import { ClawboxError, errorMessage } from "../errors/index.ts";
import {
  addressesToHold,
  blocks,
  describePortHolder,
  hostForUrl,
  portHolders,
} from "../system/index.ts";

export interface ListenOptions {
  /** `server.host` or `--host`, without brackets. */
  host: string;
  /** 0 = any free port (tests). */
  port: number;
  fetch: Hono["fetch"];
  idleTimeout: number;
  env: Record<string, string | undefined>;
  /** The home: the unix socket behind an inherited (systemd) socket lives there. */
  home: string;
}

export interface Listening {
  /** The address links name: the configured host, or the inherited socket's. */
  host: string;
  port: number;
  /** Every address held, e.g. ["127.0.0.1", "::1"]. */
  addresses: string[];
  /** Where the port came from. */
  from: "bound" | "systemd";
  /** Twins not held because this machine lacks that family (no ::1). */
  absent: string[];
  /** No new connections; open ones finish (or are closed when `closeActive`). */
  stop(closeActive?: boolean): Promise<void>;
}

type BunServer = ReturnType<typeof Bun.serve>;

const codeOf = (error: unknown) => (error as { code?: string } | undefined)?.code;

/** The refusal for a port someone else holds at `address`, naming them when possible. */
function takenError(address: string, port: number): ClawboxError {
  const holders = portHolders(port).filter((h) => blocks(h.address, address));
  const who = holders.length > 0 ? holders.map(describePortHolder).join(", ") : "another process";
  return new ClawboxError(
    "CONFIG_INVALID",
    `cannot listen on ${hostForUrl(address)}:${port}: ${who} holds it`,
    {
      hint:
        "stop that process, or choose another port with --port or server.port; the console " +
        "will not start beside another server on its port (docs/SECURITY.md)",
    },
  );
}

function bindAll(options: ListenOptions, addresses: string[]) {
  const servers: BunServer[] = [];
  const absent: string[] = [];
  let port = options.port;
  for (const [i, address] of addresses.entries()) {
    try {
      const server = Bun.serve({
        hostname: address,
        port,
        fetch: options.fetch,
        idleTimeout: options.idleTimeout,
      });
      servers.push(server);
      port = server.port ?? port;
    } catch (error) {
      // A machine without IPv6 (or IPv4) loopback: nobody can hold that twin either.
      if (i > 0 && codeOf(error) === "EADDRNOTAVAIL") {
        absent.push(address);
        continue;
      }
      for (const s of servers) s.stop(true);
      return { error, address, port };
    }
  }
  return { servers, absent, port };
}

async function bindHost(options: ListenOptions): Promise<Listening> {
  const addresses = addressesToHold(options.host);
  // A random port (tests) may be free on one family and not the other: try another.
  for (let attempt = 0; ; attempt++) {
    const bound = bindAll(options, addresses);
    if ("servers" in bound && bound.servers) {
      const servers = bound.servers;
      return {
        host: options.host,
        port: bound.port,
        addresses: addresses.filter((a) => !bound.absent.includes(a)),
        from: "bound",
        absent: bound.absent,
        stop: async (closeActive) => {
          await Promise.all(servers.map((s) => s.stop(closeActive)));
        },
      };
    }
    if (options.port === 0 && codeOf(bound.error) === "EADDRINUSE" && attempt < 8) continue;
    if (codeOf(bound.error) === "EADDRINUSE") throw takenError(bound.address, bound.port);
    throw new ClawboxError(
      "CONFIG_INVALID",
      `cannot listen on ${hostForUrl(bound.address)}:${bound.port}: ${errorMessage(bound.error)}`,
      { hint: "choose another port with --port or server.port" },
    );
  }
}

/** The sockets systemd passed (`LISTEN_FDS` for this pid), or none. */
export function inheritedSockets(env: Record<string, string | undefined>): number[] {
  if (env.LISTEN_PID !== String(process.pid)) return [];
  const count = Number(env.LISTEN_FDS);
  if (!Number.isInteger(count) || count < 1) return [];
  return Array.from({ length: count }, (_, i) => 3 + i);
}

async function serveInherited(options: ListenOptions, fds: number[]): Promise<Listening> {
  const net = await import("node:net");
  const path = join(options.home, "http.sock");
  rmSync(path, { force: true });
  // The idle timeout is the outer sockets' business (Bun's unix servers take none).
  const inner = Bun.serve({ unix: path, fetch: options.fetch });
  const open = new Set<Socket>();
  const pass = (client: Socket) => {
    const upstream = net.connect(path);
    open.add(client);
    const end = () => {
      open.delete(client);
      client.destroy();
      upstream.destroy();
    };
    client.on("error", end).on("close", end);
    upstream.on("error", end).on("close", end);
    client.pipe(upstream);
    upstream.pipe(client);
  };
  const outer: NetServer[] = [];
  const addresses: string[] = [];
  let port = options.port;
  for (const fd of fds) {
    const server = net.createServer({ noDelay: true }, pass);
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen({ fd }, () => resolve());
    });
    const address = server.address();
    if (address && typeof address === "object") {
      addresses.push(address.address);
      port = address.port;
    }
    outer.push(server);
  }
  const host = addresses[0] ?? options.host;
  // A socket unit edited down to one loopback family would leave the twin to anyone.
  const missing = addressesToHold(host).filter((a) => !addresses.includes(a));
  if (missing.length > 0) {
    for (const s of outer) s.close();
    await inner.stop(true);
    throw new ClawboxError(
      "CONFIG_INVALID",
      `systemd passed ${addresses.map(hostForUrl).join(", ")} but not ${missing.map(hostForUrl).join(", ")}: the loopback twin would be anyone's`,
      {
        hint: `add ListenStream=${missing.map((a) => `${hostForUrl(a)}:${port}`).join(" and ")} to clawbox.socket (systemctl edit clawbox.socket)`,
      },
    );
  }
  return {
    host,
    port,
    addresses,
    from: "systemd",
    absent: [],
    stop: async (closeActive) => {
      // No new connections from systemd's sockets (they stay open in systemd, which keeps
      // the port); the passed ones finish, or end now when `closeActive`.
      const closed = Promise.all(
        outer.map((s) => new Promise<void>((resolve) => s.close(() => resolve()))),
      );
      if (closeActive) for (const client of open) client.destroy();
      await inner.stop(closeActive);
      await closed;
      if (closeActive) rmSync(path, { force: true });
    },
  };
}

/**
 * Holds the console's port: the sockets systemd passed, else `host` (and its loopback
 * twin). Throws CONFIG_INVALID naming the holder when the port or its twin is taken.
 */
export function listenHttp(options: ListenOptions): Promise<Listening> {
  const fds = inheritedSockets(options.env);
  return fds.length > 0 ? serveInherited(options, fds) : bindHost(options);
}
