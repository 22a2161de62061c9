/**
 * A webhook channel (QQ in webhook mode, the WeCom self-built app) means a reverse proxy
 * in front of the box. Without `server.token` the box refuses proxied requests on every
 * route but the webhooks, but a proxy that adds no forwarding header (nginx's default)
 * cannot be told from a local client: forwarding anything besides the webhook paths
 * would make the whole internet the local stranger (docs/SECURITY.md, "Behind a
 * reverse proxy"). Warn, so the owner sets a token or checks the proxy's paths.
 */
import type { ChannelsConfig } from "../config/index.ts";
import type { CheckResult } from "./doctor-check.ts";

/** The webhook paths of the enabled webhook channels. */
function webhookPaths(channels: ChannelsConfig): string[] {
  const paths: string[] = [];
  if (channels.qq?.enabled && channels.qq.mode === "webhook") paths.push("/channels/qq/webhook");
  if (channels.wecom?.app?.enabled) paths.push("/channels/wecom/app");
  return paths;
}

export function checkWebhookToken(
  channels: ChannelsConfig,
  token: string | undefined,
): CheckResult | undefined {
  const paths = webhookPaths(channels);
  if (paths.length === 0) return undefined;
  const name = "webhooks behind a proxy";
  if (token) return { name, status: "ok", message: `${paths.join(", ")}; server.token is set` };
  return {
    name,
    status: "warn",
    message: `${paths.join(", ")} must be reached through a reverse proxy, and server.token is not set: a proxy that forwards more than these paths without a forwarding header gives the internet the local API`,
    fix: 'set server.token (clawbox config token prints one) and forward only these paths (docs/CHANNELS.md, "Behind a reverse proxy")',
  };
}
