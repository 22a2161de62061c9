/**
 * Downloads a platform-provided URL without letting a redirect reach the box's own
 * network: every redirect target is resolved and refused when any address is not public
 * unicast (loopback, private, link-local, CGNAT, unspecified, or such an address in any
 * IPv6 spelling). The body is capped while streaming and
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
 * True for addresses a redirect must never lead to: anything but a public unicast
 * address. Every IPv6 spelling is normalised by ipaddr.js first, so an IPv4-mapped
 * address (`::ffff:127.0.0.1`, WHATWG's `::ffff:7f00:1`), NAT64 (`64:ff9b::7f00:1`),
 * 6to4, Teredo, a zone id or a bracketed form cannot pass for a public one. Anything
 * that does not parse as an address is refused too.
 */
export function isPrivateAddress(address: string): boolean {
  const bare = address.replace(/^\[|\]$/g, "").replace(/%.*$/, "");
  if (!ipaddr.isValid(bare)) return true;
  return ipaddr.process(bare).range() !== "unicast";
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
