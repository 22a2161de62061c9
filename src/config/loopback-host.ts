/** Which listen addresses only this machine can reach (server.host, wyoming.host). */
const LOOPBACK = new Set(["127.0.0.1", "::1", "localhost", "[::1]"]);

/** True for the addresses only this machine can reach. */
export function isLoopbackHost(host: string): boolean {
  return LOOPBACK.has(host) || /^127\.\d+\.\d+\.\d+$/.test(host);
}
