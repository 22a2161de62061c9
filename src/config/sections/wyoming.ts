/**
 * The Wyoming server (issue 40): Home Assistant's Assist uses the box as a conversation
 * agent over the Wyoming protocol. Key names are a contract with users' config files:
 * `enabled`, `host`, `port`, `allowFrom`, `tools`, `zeroconf`. Wyoming has no
 * authentication at all, so a host beyond loopback must name who may connect
 * (`allowFrom`); the schema refuses the config otherwise (`config check` shows it).
 */
import { isIP } from "node:net";
import { z } from "../../schema/index.ts";
import { isLoopbackHost } from "../loopback-host.ts";

/** True for an IPv4/IPv6 address or a CIDR block of one (`192.168.1.0/24`, `fd00::/8`). */
function isAddressOrCidr(text: string): boolean {
  const [address = "", bits, ...rest] = text.split("/");
  const family = isIP(address);
  if (family === 0 || rest.length > 0) return false;
  if (bits === undefined) return true;
  if (!/^\d{1,3}$/.test(bits)) return false;
  return Number(bits) <= (family === 4 ? 32 : 128);
}

/**
 * What a voice request from a Home Assistant room may use when `wyoming.tools` is not
 * set (docs/SECURITY.md, "Voice rooms"): memory search over the household's own
 * conversations (no owner-private files), one picture from a camera, and the tools of
 * the MCP server named `homeassistant` (Home Assistant's own, once the box is connected).
 */
export const DEFAULT_VOICE_TOOLS = ["memory_search", "camera_snapshot", "mcp__homeassistant__*"];

const addressOrCidr = z
  .string()
  .check(
    z.refine(
      isAddressOrCidr,
      "must be an IP address or a CIDR block, like 192.168.1.20 or 192.168.1.0/24",
    ),
  );

export const wyomingSection = z._default(
  z
    .object({
      enabled: z._default(z.boolean(), false),
      host: z._default(z.string().check(z.minLength(1)), "127.0.0.1"),
      port: z._default(z.int().check(z.minimum(1), z.maximum(65535)), 10700),
      /** Peers allowed to connect (addresses or CIDRs); required beyond loopback. */
      allowFrom: z.optional(z.array(addressOrCidr)),
      /** Tool patterns a voice room may use (the whole set: replaces the non-owner default). */
      tools: z._default(z.array(z.string().check(z.minLength(1))), DEFAULT_VOICE_TOOLS),
      /** Announce `_wyoming._tcp.local.`; default: on when `host` is not loopback. */
      zeroconf: z.optional(z.boolean()),
    })
    .check(
      z.refine((w) => isLoopbackHost(w.host) || (w.allowFrom?.length ?? 0) > 0, {
        message:
          'needed when wyoming.host is not loopback: Wyoming has no authentication, so list Home Assistant\'s address (e.g. ["192.168.1.10"])',
        path: ["allowFrom"],
      }),
    ),
  { enabled: false, host: "127.0.0.1", port: 10700, tools: DEFAULT_VOICE_TOOLS },
);

export type WyomingConfig = z.infer<typeof wyomingSection>;
