/**
 * Downloads a platform-provided URL without letting a redirect reach the box's own
 * network: every redirect target is resolved and refused when any address is not public
 * unicast (loopback, private, link-local, CGNAT, unspecified, or such an address in any
 * IPv6 spelling; see `isPrivateAddress`). The body is capped while streaming and
 * the content type must match, so a hostile URL cannot fill memory or smuggle HTML.
 */
import { lookup } from "node:dns/promises";
import { isIP } from "node:net";
import ipaddr from "ipaddr.js";
import { ClawboxError } from "../errors/index.ts";

const MAX_REDIRECTS = 3;

export interface FetchPublicOptions {
  maxBytes: number;
  /** e.g. "image/" */
  contentTypePrefix: string;
  timeoutMs?: number;
}

/**
 * Global unicast (RFC 4291 §2.4): every public IPv6 address lies in it, and the
 * IPv4-compatible `::/96` (`::7f00:1` is WHATWG's `[::127.0.0.1]`) does not.
 */
const GLOBAL_UNICAST = ipaddr.IPv6.parseCIDR("2000::/3");

/**
 * An IPv6 address as WHATWG's URL parser writes it (hex groups only), parsed by ipaddr.js.
 * ipaddr.js itself reads the dotted tail of `::8.8.8.8` as IPv4-mapped, so it never sees
 * a dotted form.
 */
function canonicalIPv6(text: string): ipaddr.IPv6 | undefined {
  let host: string;
  try {
    host = new URL(`http://[${text}]/`).hostname.slice(1, -1);
  } catch {
    return undefined;
  }
  return ipaddr.IPv6.isValid(host) ? ipaddr.IPv6.parse(host) : undefined;
}

/**
 * True for addresses a redirect must never lead to: anything but a public unicast
 * address (docs/SECURITY.md, "Downloads never reach the box's network"). Every spelling
 * is judged: an IPv4-mapped address (`::ffff:127.0.0.1`, WHATWG's `::ffff:7f00:1`) is
 * judged as its IPv4 address; every other IPv6 address must be one ipaddr.js classifies
 * as unicast and lie in 2000::/3, so the IPv4-compatible `::/96` (`::7f00:1`,
 * `::8.8.8.8`), NAT64 (`64:ff9b::/96`, `64:ff9b:1::/48`), 6to4 (`2002::/16`), Teredo,
 * the discard prefix and every other reserved block are refused whatever they embed.
 * Zone ids and brackets are stripped first; anything that does not parse is refused, and
 * IPv4 in any spelling ipaddr.js reads (`127.1`, `0x7f.0.0.1`, `2130706433`) is judged.
 */
export function isPrivateAddress(address: string): boolean {
  const bare = address.replace(/^\[|\]$/g, "").replace(/%.*$/, "");
  if (bare.includes(":")) {
    const v6 = canonicalIPv6(bare);
    if (!v6) return true;
    if (v6.isIPv4MappedAddress()) return v6.toIPv4Address().range() !== "unicast";
    return v6.range() !== "unicast" || !v6.match(GLOBAL_UNICAST);
  }
  if (!ipaddr.IPv4.isValid(bare)) return true;
  return ipaddr.IPv4.parse(bare).range() !== "unicast";
}

async function assertPublicHost(url: URL): Promise<void> {
  const host = url.hostname.replace(/^\[|\]$/g, "");
  const addresses = isIP(host) ? [host] : (await lookup(host, { all: true })).map((r) => r.address);
  if (addresses.some(isPrivateAddress))
    throw new ClawboxError(
      "HTTP_BAD_REQUEST",
      `redirect to a private address refused: ${url.host}`,
    );
}

async function readCapped(response: Response, maxBytes: number): Promise<Uint8Array> {
  const declared = Number(response.headers.get("content-length") ?? "0");
  if (declared > maxBytes)
    throw new ClawboxError(
      "HTTP_BAD_REQUEST",
      `download is ${declared} bytes, over the ${maxBytes} byte cap`,
    );
  const chunks: Uint8Array[] = [];
  let total = 0;
  const reader = response.body?.getReader();
  if (!reader) return new Uint8Array();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.length;
    if (total > maxBytes) {
      await reader.cancel();
      throw new ClawboxError("HTTP_BAD_REQUEST", `download over the ${maxBytes} byte cap`);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks);
}

/** The first URL comes from the platform; every redirect it leads to is checked. */
export async function fetchPublic(
  url: string,
  options: FetchPublicOptions,
): Promise<{ bytes: Uint8Array; contentType: string }> {
  let current = new URL(url);
  for (let hop = 0; hop <= MAX_REDIRECTS; hop++) {
    if (hop > 0) await assertPublicHost(current);
    const response = await fetch(current, {
      redirect: "manual",
      signal: AbortSignal.timeout(options.timeoutMs ?? 15_000),
    });
    if (response.status >= 300 && response.status < 400) {
      const location = response.headers.get("location");
      await response.body?.cancel();
      if (!location) throw new ClawboxError("HTTP_BAD_REQUEST", "redirect without a Location");
      current = new URL(location, current);
      continue;
    }
    if (!response.ok) {
      await response.body?.cancel();
      throw new ClawboxError("HTTP_BAD_REQUEST", `download failed: HTTP ${response.status}`);
    }
    const contentType = response.headers.get("content-type") ?? "";
    if (!contentType.toLowerCase().startsWith(options.contentTypePrefix)) {
      await response.body?.cancel();
      throw new ClawboxError(
        "HTTP_BAD_REQUEST",
        `expected ${options.contentTypePrefix}* but got "${contentType || "no content type"}"`,
      );
    }
    return { bytes: await readCapped(response, options.maxBytes), contentType };
  }
  throw new ClawboxError("HTTP_BAD_REQUEST", `more than ${MAX_REDIRECTS} redirects`);
}
