/**
 * Home Assistant as the house the box acts on (issue 41): the box's MCP client connects
 * to HA's MCP server (`<url>/api/mcp`, the `mcp_server` integration) with a long-lived
 * access token. Key names are a contract: `homeAssistant.url`, `homeAssistant.token`.
 * The token is a secret (its key says so to `redact`): it goes only to `url`, never
 * through a redirect, and a changed `url` needs it typed again (the console's rule).
 */
import { z } from "../../schema/index.ts";

/** HA's own address, e.g. `http://homeassistant.local:8123` (a trailing `/api/mcp` is accepted). */
const homeAssistantUrl = z
  .string()
  .check(
    z.regex(
      /^https?:\/\/[^\s/?#@]+(\/[^\s?#]*)?$/,
      "must be http://host:port or https://host, without user, query or fragment",
    ),
  );

export const homeAssistantSection = z.optional(
  z.object({
    /** HA's address; the MCP endpoint is `<url>/api/mcp`. */
    url: homeAssistantUrl,
    /** A long-lived access token (HA → your profile → Security). */
    token: z.string().check(z.minLength(1)),
    /** Off keeps the settings but does not connect. */
    enabled: z._default(z.boolean(), true),
    /** For a local model: at most this many HA tools per turn, those matching the message. */
    localModelTools: z._default(z.number().check(z.int(), z.minimum(1), z.maximum(32)), 5),
  }),
);

export type HomeAssistantConfig = NonNullable<z.infer<typeof homeAssistantSection>>;
