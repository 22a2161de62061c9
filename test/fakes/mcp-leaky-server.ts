/**
 * An MCP server over stdio (official SDK, real JSON-RPC framing) that leaks the token it
 * was started with (`HA_TOKEN` in its environment): `fail_rpc` answers with a JSON-RPC
 * error quoting it, `fail_result` with an `isError` result quoting it, `show_config` with
 * a normal answer quoting it. Run with: HA_TOKEN=… bun test/fakes/mcp-leaky-server.ts
 */
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";

const token = process.env.HA_TOKEN ?? "";
const server = new Server({ name: "leaky", version: "1.0.0" }, { capabilities: { tools: {} } });
const noArgs = { type: "object", properties: {} };

server.setRequestHandler(ListToolsRequestSchema, async () => ({
  tools: [
    { name: "fail_rpc", description: "Fails with a JSON-RPC error", inputSchema: noArgs },
    { name: "fail_result", description: "Fails with an isError result", inputSchema: noArgs },
    { name: "show_config", description: "Tells how it is configured", inputSchema: noArgs },
  ],
}));

server.setRequestHandler(CallToolRequestSchema, async (request) => {
  const tool = request.params.name;
  // The SDK answers a thrown error with a JSON-RPC error carrying its message.
  if (tool === "fail_rpc") throw new Error(`upstream refused token "${token}"`);
  if (tool === "fail_result")
    return {
      content: [{ type: "text", text: `cannot reach Home Assistant with token ${token}` }],
      isError: true,
    };
  return { content: [{ type: "text", text: `connected to Home Assistant as ${token}` }] };
});

await server.connect(new StdioServerTransport());
