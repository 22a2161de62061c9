/**
 * Short session names (`kitchen`) and the surfaces that resolve them. A name always
 * means the same session wherever the same person gives it: the terminal and the web
 * console are the owner's own surfaces and share one set of names (the CLI's,
 * `agent:<id>:cli:direct:<name>`, so `clawbox chat --session kitchen` and the console's
 * "kitchen" are one conversation); the HTTP API names sessions inside the web channel and
 * MQTT inside the MQTT channel, where strangers may use them too.
 */
export type Surface = "cli" | "console" | "web" | "mqtt" | "openai-api";

/** The channel whose namespace a surface's names live in. */
export const NAME_CHANNEL: Record<Surface, string> = {
  cli: "cli",
  console: "cli",
  web: "web",
  mqtt: "mqtt",
  "openai-api": "openai-api",
};

/** The channel a surface's own turns are on (what the per-turn facts say). */
export const SURFACE_CHANNEL: Record<Surface, string> = {
  cli: "cli",
  console: "web",
  web: "web",
  mqtt: "mqtt",
  "openai-api": "openai-api",
};

const SHORT_NAME = /^[A-Za-z0-9][A-Za-z0-9._@+-]{0,63}$/;

export function isShortName(text: string): boolean {
  return SHORT_NAME.test(text);
}

/** The peer name of the owner's default session on a surface. */
export const OWNER_PEER = "owner";
/** The peer name of a tokenless web client's default session. */
export const WEB_LOCAL_PEER = "local";

/** What Home Assistant's transcript says about where a voice request came from. */
export interface VoiceOrigin {
  satelliteId?: string | undefined;
  deviceId?: string | undefined;
  conversationId?: string | undefined;
}

/**
 * The room a voice request comes from, as a short name: HA's satellite id, else its
 * device id. A request from no device (typed in HA's app or dashboard) is a
 * conversation of its own, named by HA's conversation id, so the same id continues it.
 * Characters a short name cannot hold become "-"; at most 64 characters.
 */
export function voiceRoomName(origin: VoiceOrigin): string {
  const source =
    origin.satelliteId ||
    origin.deviceId ||
    (origin.conversationId ? `conversation-${origin.conversationId}` : "assist");
  const name = source
    .replace(/[^A-Za-z0-9._@+-]/g, "-")
    .replace(/^[^A-Za-z0-9]+/, "")
    .slice(0, 64)
    .replace(/^\.+$/, "");
  return isShortName(name) ? name : "assist";
}
