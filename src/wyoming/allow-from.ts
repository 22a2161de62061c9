/**
 * Who may connect (`wyoming.allowFrom`): exact addresses and CIDR blocks, IPv4 and
 * IPv6. An IPv4 peer seen through an IPv6 socket (`::ffff:192.168.1.10`) is judged as
 * the IPv4 address it is. A loopback listener with no list admits only loopback peers:
 * nothing else can reach it anyway, and the rule stays true if the kernel says otherwise.
 */
import { isIP } from "node:net";

/** An address as 4 or 16 bytes, or undefined. */
function addressBytes(text: string): Uint8Array | undefined {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(text);
  const address = mapped?.[1] ?? text;
  const family = isIP(address);
  if (family === 4) return Uint8Array.from(address.split(".").map(Number));
  if (family !== 6) return undefined;
  const [head = "", tail] = address.split("::");
  const groups = (part: string) => (part ? part.split(":") : []);
  let left = groups(head);
  let right = tail === undefined ? [] : groups(tail);
  // An embedded IPv4 tail (::ffff:1.2.3.4 spelled other ways) is two groups.
  const expand = (list: string[]) =>
    list.flatMap((g) => {
      if (!g.includes(".")) return [g];
      const [a = 0, b = 0, c = 0, d = 0] = g.split(".").map(Number);
      return [((a << 8) | b).toString(16), ((c << 8) | d).toString(16)];
    });
  left = expand(left);
  right = expand(right);
  const missing = 8 - left.length - right.length;
  const all = [
    ...left,
    ...Array.from({ length: tail === undefined ? 0 : missing }, () => "0"),
    ...right,
  ];
  if (all.length !== 8) return undefined;
  const bytes = new Uint8Array(16);
  all.forEach((g, i) => {
    const value = Number.parseInt(g, 16);
    bytes[i * 2] = value >> 8;
    bytes[i * 2 + 1] = value & 0xff;
  });
  // An IPv4-mapped IPv6 address is its IPv4 address.
  if (bytes.subarray(0, 10).every((b) => b === 0) && bytes[10] === 0xff && bytes[11] === 0xff)
    return bytes.subarray(12);
  return bytes;
}

function inBlock(peer: Uint8Array, block: string): boolean {
  const [address = "", bitsText] = block.split("/");
  const base = addressBytes(address);
  if (!base || base.byteLength !== peer.byteLength) return false;
  const bits = bitsText === undefined ? base.byteLength * 8 : Number(bitsText);
  for (let i = 0; i < base.byteLength; i++) {
    const take = Math.max(0, Math.min(8, bits - i * 8));
    const mask = take === 0 ? 0 : (0xff << (8 - take)) & 0xff;
    if (((base[i] ?? 0) & mask) !== ((peer[i] ?? 0) & mask)) return false;
  }
  return true;
}

function isLoopbackPeer(peer: Uint8Array): boolean {
  if (peer.byteLength === 4) return peer[0] === 127;
  return peer.subarray(0, 15).every((b) => b === 0) && peer[15] === 1;
}

/** May `remoteAddress` connect? `allowFrom` undefined or empty: loopback peers only. */
export function peerAllowed(
  remoteAddress: string,
  allowFrom: readonly string[] | undefined,
): boolean {
  const peer = addressBytes(remoteAddress);
  if (!peer) return false;
  if (!allowFrom || allowFrom.length === 0) return isLoopbackPeer(peer);
  return allowFrom.some((block) => inBlock(peer, block));
}
