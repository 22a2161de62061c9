/**
 * The Channels page's "Home Assistant voice" section (issue 40): the `wyoming` config
 * keys as a form, its status line (where it listens, the announced name, the rooms seen,
 * the last request and its outcome, from the running service's status file) and its
 * Test button (a `describe` to the server, as Home Assistant sends it). Kept apart from
 * the chat channels' forms: the server lives in src/wyoming and loads only when asked.
 */
import type { WyomingConfig } from "../config/index.ts";
import type { ChannelForm } from "./channel-forms.ts";

export const WYOMING_FORM: ChannelForm = {
  id: "wyoming",
  title: "Home Assistant voice",
  path: ["wyoming"],
  intro:
    "Home Assistant's Assist uses the box as its conversation agent over Wyoming: add it in Home Assistant (Settings → Devices & services → Wyoming Protocol), then pick it under Settings → Voice assistants. Wyoming has no password, so beyond this machine list Home Assistant's address. Changes apply when the service restarts.",
  secretsGoTo: { fields: [], secrets: [] },
  fields: [
    { key: "enabled", label: "Enabled", kind: "bool" },
    { key: "port", label: "Port", kind: "number", placeholder: "10700" },
    {
      key: "host",
      label: "Listen address",
      kind: "text",
      placeholder: "127.0.0.1",
      help: "0.0.0.0 listens on every interface (then list the allowed addresses).",
    },
    {
      key: "allowFrom",
      label: "Allowed addresses",
      kind: "list",
      help: "Home Assistant's address or a CIDR block, comma-separated, e.g. 192.168.1.10.",
    },
    {
      key: "zeroconf",
      label: "Announce over mDNS (Home Assistant finds the box by itself)",
      kind: "bool",
      advanced: true,
    },
  ],
};

/** The section's status line: the live server's, else why there is none. */
export async function wyomingFormStatus(
  wyoming: WyomingConfig,
  home: string,
): Promise<{ state: string; reason: string | null }> {
  const { wyomingChannelStatus } = await import("../wyoming/index.ts");
  const status = wyomingChannelStatus(wyoming, home);
  return { state: status.state, reason: status.reason ?? null };
}

/** The Test button: a `describe` to the server as the settings in the form name it. */
export async function probeWyoming(
  wyoming: WyomingConfig,
): Promise<{ ok: boolean; message: string }> {
  const { describeServer } = await import("../wyoming/index.ts");
  return describeServer(wyoming);
}
