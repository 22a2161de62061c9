/**
 * The Channels page's "Home Assistant" section: where the box's MCP client finds Home
 * Assistant (`homeAssistant.url`) and the long-lived access token it sends there
 * (`homeAssistant.token`, write-only like every form secret). Test runs one MCP
 * handshake against the form's settings; Save writes them and the link reconnects at
 * once. A changed address needs the token typed again (secret-destination.ts).
 */
import type { ChannelForm } from "./channel-forms.ts";

export const HOME_ASSISTANT_FORM: ChannelForm = {
  id: "home-assistant",
  title: "Home Assistant",
  path: ["homeAssistant"],
  intro:
    'Lets the box switch your lights and read sensors through Home Assistant\'s MCP server. In Home Assistant add the "Model Context Protocol Server" integration, then create a long-lived access token (your profile → Security).',
  // The token goes to `<url>/api/mcp`, and nowhere else.
  secretsGoTo: { fields: ["url"], secrets: ["token"] },
  fields: [
    {
      key: "url",
      label: "Home Assistant URL",
      kind: "text",
      required: true,
      placeholder: "http://homeassistant.local:8123",
    },
    {
      key: "token",
      label: "Long-lived access token",
      kind: "secret",
      required: true,
      help: "Sent only to this address, never through a redirect.",
    },
    {
      key: "enabled",
      label: "Enabled",
      kind: "bool",
      help: "Off keeps the settings but does not connect.",
    },
    {
      key: "localModelTools",
      label: "Tools per turn for a local model",
      kind: "number",
      advanced: true,
      help: "A small model gets at most this many of Home Assistant's tools, those matching the message (default 5).",
    },
  ],
};
