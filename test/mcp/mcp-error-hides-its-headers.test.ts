/**
 * docs/SECURITY.md, "Secrets": an MCP server (or the proxy in front of it) that refuses
 * the connection and quotes the request's custom header back in its HTTP 401 body does
 * not put that header value into the server's status error or its log line: the failure
 * text is cleaned of the server's own `headers` and `env` values where it is recorded, so
 * neither the tool error a model reads nor a status can quote them.
 */
import { createServer, type Server } from "node:http";
import { afterEach, describe, expect, it } from "vitest";
import { createMcpManager, type McpManager } from "../../src/mcp/index.ts";
import { createLogger } from "../../src/system/index.ts";
import { buildConfig } from "../agent/agent-harness.ts";

const HEADER_VALUE = "HAHDR77";

let server: Server | undefined;
let manager: McpManager | undefined;
afterEach(async () => {
  await manager?.close();
  manager = undefined;
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = undefined;
});

/** An HTTP endpoint that refuses every request with 401, quoting its `X-HA-Auth` header. */
async function refusingEndpoint(): Promise<string> {
  server = createServer((req, res) => {
    req.resume();
    res.writeHead(401, { "content-type": "text/plain" });
    res.end(`401: bad X-HA-Auth header "${String(req.headers["x-ha-auth"])}"`);
  });
  await new Promise<void>((resolve) => server?.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  if (!address || typeof address === "string") throw new Error("no port");
  return `http://127.0.0.1:${address.port}/mcp`;
}

describe("an MCP server's failure text", () => {
  it("hides the server's custom header value the endpoint quoted back", async () => {
    const url = await refusingEndpoint();
    const config = buildConfig({
      tools: {
        mcp: {
          connectTimeoutMs: 5000,
          reconnectDelayMs: 60_000,
          servers: { home: { transport: "http", url, headers: { "X-HA-Auth": HEADER_VALUE } } },
        },
      },
    });
    const lines: string[] = [];
    // A logger that knows no secrets: what it prints is the failure text as recorded.
    const logger = createLogger({ write: (line) => lines.push(line) });
    manager = createMcpManager(config.tools.mcp, logger);
    await manager.ready();
    const [status] = manager.status();
    expect(status?.state).toBe("failed");
    expect(status?.error).toContain("401");
    expect(status?.error).toContain("[redacted]");
    expect(status?.error).not.toContain(HEADER_VALUE);
    const logged = lines.join("\n");
    expect(logged).toContain("unavailable");
    expect(logged).not.toContain(HEADER_VALUE);
  }, 20_000);
});
