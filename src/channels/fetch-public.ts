/**
 * Downloads a platform-provided URL without letting a redirect reach the box's own
 * network: every redirect target is resolved and refused when any address is loopback,
 * private, link-local, CGNAT or unspecified. The body is capped while streaming and
 * the content type must match, so a hostile URL cannot fill memory or smuggle HTML.
 */
import { lookup } from "node:dns/promises";
import { isIP } from "node:net";
import { ClawboxError } from "../errors/index.ts";

const MAX_REDIRECTS = 3;

export interface FetchPublicOptions {
  maxBytes: number;
  /** e.g. "image/" */
  contentTypePrefix: string;
  timeoutMs?: number;
}

/** True for addresses a redirect must never lead to. */
export function isPrivateAddress(address: string): boolean {
  if (isIP(address) === 6) {
    const a = address.toLowerCase();
    if (a === "::1" || a === "::") return true;
    if (a.startsWith("::ffff:")) return isPrivateAddress(a.slice(7));
    return /^(fc|fd|fe8|fe9|fea|feb)/.test(a);
  }
  const parts = address.split(".").map(Number);
  const [a = -1, b = -1] = parts;
  return (
    a === 0 ||
    a === 10 ||
    a === 127 ||
    (a === 100 && b >= 64 && b <= 127) ||
    (a === 169 && b === 254) ||
    (a === 172 && b >= 16 && b <= 31) ||
    (a === 192 && b === 168)
  );
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
