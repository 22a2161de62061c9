/**
 * Same-host only: a request whose Host is not a name of this box (DNS rebinding: an
 * attacker's domain resolving to 127.0.0.1) or whose Origin is another site (a web page
 * the owner visits) gets 403 before any route runs. Allowed Host names: localhost, the
 * loopback addresses, the address the server is bound to (with the machine's own names
 * and addresses when bound to all interfaces), and `server.allowedHosts`. An Origin must
 * be the request's own (same host and port) or a configured name. Requests without an
 * Origin (curl, scripts) pass the Origin check; the Host check always applies.
 */
import { hostname, networkInterfaces } from "node:os";
import type { MiddlewareHandler } from "hono";
import { jsonError } from "./json-error.ts";

const WILDCARD = new Set(["0.0.0.0", "::", "[::]", ""]);

function normalizeName(name: string): string {
  return name
    .trim()
    .toLowerCase()
    .replace(/^\[|\]$/g, "")
    .replace(/\.$/, "");
}

/** The host names a request may name, for a server bound to `boundHost`. */
export function allowedHostNames(
  boundHost: string | undefined,
  extra: readonly string[],
): Set<string> {
  const names = new Set(["localhost", "127.0.0.1", "::1", ...extra.map(normalizeName)]);
  const bound = normalizeName(boundHost ?? "127.0.0.1");
  if (!WILDCARD.has(bound)) names.add(bound);
  else {
    const own = hostname().toLowerCase();
    names.add(own);
    names.add(`${own}.local`);
    for (const list of Object.values(networkInterfaces()))
      for (const address of list ?? []) names.add(normalizeName(address.address));
  }
  return names;
}

/** Host name of a Host header value ("example.com:8080", "[::1]:80"), or undefined. */
function hostOf(value: string): string | undefined {
  try {
    return normalizeName(new URL(`http://${value}`).hostname);
  } catch {
    return undefined;
  }
}

function originHost(origin: string): string | undefined {
  try {
    const url = new URL(origin);
    if (url.protocol !== "http:" && url.protocol !== "https:") return undefined;
    return normalizeName(url.hostname);
  } catch {
    return undefined; // "null" (sandboxed frames, file://) and garbage
  }
}

export interface HostGuardOptions {
  /** The address the server listens on (server.host or --host). */
  boundHost?: string;
  /** `server.allowedHosts`. */
  allowedHosts?: readonly string[];
}

export function hostOriginGuard(options: HostGuardOptions): MiddlewareHandler {
  const allowed = allowedHostNames(options.boundHost, options.allowedHosts ?? []);
  const configured = new Set((options.allowedHosts ?? []).map(normalizeName));
  /** Same origin as the request itself, or a configured name (e.g. a reverse proxy). */
  const originAllowed = (origin: string, hostHeader: string) => {
    const from = originHost(origin);
    if (!from) return false;
    if (configured.has(from)) return true;
    return new URL(origin).host.toLowerCase() === hostHeader.trim().toLowerCase();
  };
  return async (c, next) => {
    const host = hostOf(c.req.header("host") ?? "");
    if (!host || !allowed.has(host)) {
      return jsonError(
        c,
        403,
        "HTTP_FORBIDDEN",
        `host "${c.req.header("host") ?? ""}" is not a name of this box; add it to server.allowedHosts if it is`,
      );
    }
    const origin = c.req.header("origin");
    if (origin !== undefined) {
      if (!originAllowed(origin, c.req.header("host") ?? "")) {
        return jsonError(
          c,
          403,
          "HTTP_FORBIDDEN",
          `requests from origin "${origin}" are refused; only pages served by this box may call it`,
        );
      }
    }
    return next();
  };
}
