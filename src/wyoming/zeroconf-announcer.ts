/**
 * Zero YAML: announces the Wyoming server as `<name>._wyoming._tcp.local.` over mDNS,
 * which Home Assistant's `wyoming` integration discovers (its manifest.json lists
 * `"zeroconf": ["_wyoming._tcp.local."]`; the Python library's own announcer,
 * OHF-Voice/wyoming `wyoming/zeroconf.py`, publishes the host's IPv4 and the port with
 * no TXT properties, and so does this one). Only on the interface the server listens on:
 * for a specific address, multicast goes out of that interface alone and the only
 * address record is that address; for `0.0.0.0`, on every interface. Library:
 * bonjour-service, chosen over @homebridge/ciao by RSS under Bun (docs/BENCHMARKS.md,
 * "wyoming"); imported only when announcing.
 */
import { isIP } from "node:net";
import { errorMessage } from "../errors/index.ts";
import type { Logger } from "../system/index.ts";

export interface Announcement {
  /** "announced", or why not. */
  readonly state: string;
  /** Sends the goodbye packets and closes the sockets. */
  close(): Promise<void>;
}

interface PublishedRecord {
  type: string;
  data: unknown;
}

/** How long to wait for the first announcement before reporting it (probing takes ~750 ms). */
const UP_WAIT_MS = 3000;

export async function announceWyoming(input: {
  name: string;
  host: string;
  port: number;
  logger: Logger;
}): Promise<Announcement> {
  const specific = isIP(input.host) === 4 && input.host !== "0.0.0.0" ? input.host : undefined;
  if (isIP(input.host) === 6 && input.host !== "::")
    return {
      state: "not announced: mDNS announcing is IPv4 only (as Home Assistant's)",
      close: async () => {},
    };
  try {
    const { Bonjour } = await import("bonjour-service");
    // The multicast-dns options: bind multicast to the listening address's interface.
    const options = (specific ? { interface: specific } : {}) as ConstructorParameters<
      typeof Bonjour
    >[0];
    let failure: string | undefined;
    const bonjour = new Bonjour(options, (error: unknown) => {
      failure = errorMessage(error);
      input.logger.warn("wyoming: mDNS announcing failed", { error: failure });
    });
    const service = bonjour.publish({
      name: input.name,
      type: "wyoming",
      protocol: "tcp",
      port: input.port,
      disableIPv6: true,
    });
    if (specific) {
      // One address record, the listening one (the library lists every interface's).
      const all = service.records.bind(service);
      service.records = () =>
        (all() as PublishedRecord[]).filter(
          (r) => r.type !== "A" || r.data === specific,
        ) as ReturnType<typeof all>;
    }
    const up = await new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => resolve(false), UP_WAIT_MS);
      service.once("up", () => {
        clearTimeout(timer);
        resolve(true);
      });
    });
    const state = up
      ? "announced"
      : `not announced: ${failure ?? "no answer from the network within 3 s"}`;
    return {
      state,
      close: () =>
        new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, 1000);
          bonjour.unpublishAll(() => {
            bonjour.destroy();
            clearTimeout(timer);
            resolve();
          });
        }),
    };
  } catch (error) {
    return { state: `not announced: ${errorMessage(error)}`, close: async () => {} };
  }
}
