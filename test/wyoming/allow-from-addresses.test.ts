/** `wyoming.allowFrom`: exact addresses and CIDR blocks, IPv4, IPv6 and IPv4-mapped peers. */
import { describe, expect, it } from "vitest";
import { peerAllowed } from "../../src/wyoming/index.ts";

describe("who may connect to the Wyoming server", () => {
  it("without a list, only loopback peers", () => {
    expect(peerAllowed("127.0.0.1", undefined)).toBe(true);
    expect(peerAllowed("127.0.0.2", [])).toBe(true);
    expect(peerAllowed("::1", undefined)).toBe(true);
    expect(peerAllowed("::ffff:127.0.0.1", undefined)).toBe(true);
    expect(peerAllowed("192.168.1.10", undefined)).toBe(false);
    expect(peerAllowed("fe80::1", undefined)).toBe(false);
  });

  it("addresses and CIDR blocks, judged by bits, and nothing that is not an address", () => {
    const list = ["192.168.1.10", "10.20.0.0/16", "fd00::/8", "2001:db8::5"];
    expect(peerAllowed("192.168.1.10", list)).toBe(true);
    expect(peerAllowed("192.168.1.11", list)).toBe(false);
    expect(peerAllowed("10.20.255.1", list)).toBe(true);
    expect(peerAllowed("10.21.0.1", list)).toBe(false);
    expect(peerAllowed("::ffff:10.20.3.4", list)).toBe(true);
    expect(peerAllowed("::ffff:10.21.3.4", list)).toBe(false);
    expect(peerAllowed("fd12:3456::1", list)).toBe(true);
    expect(peerAllowed("fe80::1", list)).toBe(false);
    expect(peerAllowed("2001:db8:0:0:0:0:0:5", list)).toBe(true);
    expect(peerAllowed("2001:db8::6", list)).toBe(false);
    // A listed address does not admit loopback by itself.
    expect(peerAllowed("127.0.0.1", list)).toBe(false);
    expect(peerAllowed("", list)).toBe(false);
    expect(peerAllowed("not-an-address", list)).toBe(false);
    expect(peerAllowed("0.0.0.0", ["0.0.0.0/0"])).toBe(true);
    expect(peerAllowed("192.168.1.10", ["192.168.1.0/24"])).toBe(true);
    expect(peerAllowed("192.168.2.10", ["192.168.1.0/23"])).toBe(false);
    expect(peerAllowed("192.168.0.10", ["192.168.1.0/23"])).toBe(true);
  });
});
