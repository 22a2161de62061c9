/**
 * An MCP server that hangs. Mode "silent" (default) reads stdin and never answers
 * anything, not even initialize. Mode "calls" answers initialize and tools/list like a
 * real server (newline-delimited JSON-RPC) but never answers tools/call.
 * Run with: bun test/fakes/mcp-hanging-server.ts [silent|calls]
 */
import { createInterface } from "node:readline";

const mode = process.argv[2] ?? "silent";
const send = (message: unknown) => process.stdout.write(`${JSON.stringify(message)}\n`);

createInterface({ input: process.stdin }).on("line", (line) => {
  if (mode === "silent") return;
  let request: { id?: number | string; method?: string; params?: { protocolVersion?: string } };
  try {
    request = JSON.parse(line);
  } catch {
    return;
  }
  if (request.method === "initialize") {
    send({
      jsonrpc: "2.0",
      id: request.id,
      result: {
        protocolVersion: request.params?.protocolVersion ?? "2025-06-18",
        capabilities: { tools: {} },
        serverInfo: { name: "hanging", version: "1.0.0" },
      },
    });
  } else if (request.method === "tools/list") {
    send({
      jsonrpc: "2.0",
      id: request.id,
      result: {
        tools: [
          {
            name: "wait_forever",
            description: "Never returns",
            inputSchema: { type: "object", properties: {} },
          },
        ],
      },
    });
  }
});
