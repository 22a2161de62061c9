/**
 * Who a request comes from, as the login limit and the bearer token's limit count it:
 * the connection's address in one spelling (`::ffff:127.0.0.1` is `127.0.0.1`), and
 * apart from it every request that came through a reverse proxy (it carries
 * `Forwarded`, `X-Forwarded-For`, `X-Real-IP` or `Via`). Behind a proxy every internet
 * client arrives from the proxy's address, often 127.0.0.1: counted with the owner's own
 * local requests, five wrong logins from the internet would lock the owner out
 * (docs/SECURITY.md, "Behind a reverse proxy"). Forwarded addresses are never trusted:
 * anyone can write those headers.
 */
import type { Context } from "hono";

/** Headers a reverse proxy adds (nginx with the usual settings, Caddy by default, tunnels). */
const PROXY_HEADERS = ["forwarded", "x-forwarded-for", "x-real-ip", "via"] as const;

/** The key prefix of clients that came through a proxy (their own bucket). */
export const PROXIED_CLIENT = "proxied:";

/** The proxy header `request` carries, or undefined for a direct request. */
export function proxyHeaderOf(headers: Headers): string | undefined {
  return PROXY_HEADERS.find((name) => headers.has(name));
}

/** The connection's address, one spelling per address; "unknown" on a unix socket. */
function connectionAddress(c: Context): string {
  const server = c.env as { requestIP?: (r: Request) => { address: string } | null } | undefined;
  let address: string | undefined;
  try {
    address = server?.requestIP?.(c.req.raw)?.address;
  } catch {
    return "unknown";
  }
  if (!address) return "unknown";
  const bare = address.replace(/%.*$/, "").toLowerCase();
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(bare);
  return mapped?.[1] ?? bare;
}

/** The key a request's failures are counted under: its address, or `proxied:<address>`. */
export function clientKey(c: Context): string {
  const address = connectionAddress(c);
  return proxyHeaderOf(c.req.raw.headers) ? `${PROXIED_CLIENT}${address}` : address;
}
