/**
 * A small MCP server over stdio (official SDK, real JSON-RPC framing) standing in for
 * Home Assistant's: `light_set` switches a named light and `light_state` reads it back.
 * Run with: bun test/fakes/mcp-home-server.ts
 */
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";

const lights = new Map<string, boolean>();
const server = new Server({ name: "fake-home", version: "1.0.0" }, { capabilities: { tools: {} } });

server.setRequestHandler(ListToolsRequestSchema, async () => ({
  tools: [
    {
      name: "light_set",
      description: "Switch a light on or off",
      inputSchema: {
        type: "object",
        properties: { name: { type: "string" }, on: { type: "boolean" } },
        required: ["name", "on"],
      },
    },
    {
      name: "light_state",
      description: "Whether a light is on",
      inputSchema: { type: "object", properties: { name: { type: "string" } }, required: ["name"] },
    },
  ],
}));

server.setRequestHandler(CallToolRequestSchema, async (request) => {
  const args = (request.params.arguments ?? {}) as { name?: string; on?: boolean };
  if (request.params.name === "light_set") {
    lights.set(String(args.name), args.on === true);
    return { content: [{ type: "text", text: `${args.name} is now ${args.on ? "on" : "off"}` }] };
  }
  if (request.params.name === "light_state") {
    return {
      content: [
        { type: "text", text: `${args.name}: ${lights.get(String(args.name)) ? "on" : "off"}` },
      ],
    };
  }
  return {
    content: [{ type: "text", text: `unknown tool ${request.params.name}` }],
    isError: true,
  };
});

await server.connect(new StdioServerTransport());
