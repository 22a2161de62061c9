/**
 * The console's port and its loopback twin (docs/SECURITY.md, "The console's port and
 * its login link"): which addresses the box holds for a host, which listeners take
 * connections meant for an address, and what /proc says about this test's own listener.
 */
import { createServer } from "node:net";
import { describe, expect, it } from "vitest";
import { addressesToHold, blocks, describePortHolder, portHolders } from "./port-holders.ts";

describe("the addresses held for server.host", () => {
  it("hold both loopback families for every loopback host and for 0.0.0.0", () => {
    expect(addressesToHold("127.0.0.1")).toEqual(["127.0.0.1", "::1"]);
    expect(addressesToHold("localhost")).toEqual(["127.0.0.1", "::1"]);
    expect(addressesToHold("[::1]")).toEqual(["::1", "127.0.0.1"]);
    expect(addressesToHold("0.0.0.0")).toEqual(["0.0.0.0", "::1"]);
    expect(addressesToHold("192.168.1.20")).toEqual(["192.168.1.20"]);
  });

  it("counts wildcard and IPv4-mapped listeners as holding an address", () => {
    expect(blocks("::", "127.0.0.1")).toBe(true);
    expect(blocks("0.0.0.0", "127.0.0.1")).toBe(true);
    expect(blocks("::ffff:127.0.0.1", "127.0.0.1")).toBe(true);
    expect(blocks("0.0.0.0", "::1")).toBe(false);
    expect(blocks("::1", "::1")).toBe(true);
  });
});

describe("portHolders", () => {
  it("finds this process's own listener on ::1 with its pid and uid", async () => {
    const server = createServer();
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(0, "::1", () => resolve());
    });
    try {
      const address = server.address();
      const port = typeof address === "object" && address ? address.port : 0;
      const mine = portHolders(port).find((h) => h.address === "::1");
      expect(mine).toMatchObject({
        address: "::1",
        port,
        uid: process.getuid?.(),
        pid: process.pid,
      });
      expect(describePortHolder(mine ?? { address: "", port, uid: 0 })).toContain(
        `pid ${process.pid}`,
      );
    } finally {
      server.close();
    }
  });
});
