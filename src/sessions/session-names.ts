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
