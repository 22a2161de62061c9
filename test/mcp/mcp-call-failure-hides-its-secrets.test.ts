/**
 * docs/SECURITY.md, "Secrets": an MCP server that connected fine and then quotes the
 * token it was started with (an `env` value) or the request's `Authorization` and custom
 * header in a tool call's failure (a JSON-RPC error, an `isError` result, an HTTP error
 * from the proxy in front of it mid-call) or in a normal answer does not put those values
 * into the tool result the model reads, nor into the stored turn. The result still names
 * the server and says that the call failed.
 */
import { randomUUID } from "node:crypto";
import { createServer, type Server as HttpServer } from "node:http";
import { join } from "node:path";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { afterEach, describe, expect, it } from "vitest";
import type { Message } from "../../src/messages/index.ts";
import { createHarness, type Harness, ownerRequest } from "../agent/agent-harness.ts";
import { createFakeProvider } from "../fakes/fake-provider.ts";

const ENV_TOKEN = "envtok-4f9a2c";
const AUTHORIZATION = "Token hdrauth-7b31e0";
const CUSTOM_HEADER = "hahdr-c5d8e2";
const SECRETS = [ENV_TOKEN, AUTHORIZATION, CUSTOM_HEADER];

const leakyServer = join(import.meta.dirname, "..", "fakes", "mcp-leaky-server.ts");

let harness: Harness | undefined;
let http: HttpServer | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
  http?.closeAllConnections();
  await new Promise<void>((resolve) => (http ? http.close(() => resolve()) : resolve()));
  http = undefined;
});

/**
 * A streamable HTTP MCP server (official SDK) on 127.0.0.1 whose `fail_rpc` answers with a
 * JSON-RPC error quoting the request's headers, behind a "proxy" that answers a call of
 * `proxy_fail` with HTTP 502 quoting them.
 */
async function headerQuotingEndpoint(): Promise<string> {
  const mcp = new Server({ name: "quoting", version: "1.0.0" }, { capabilities: { tools: {} } });
  const noArgs = { type: "object" as const, properties: {} };
  mcp.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: [
      { name: "fail_rpc", description: "Fails with a JSON-RPC error", inputSchema: noArgs },
      { name: "proxy_fail", description: "Its proxy fails mid-call", inputSchema: noArgs },
    ],
  }));
  mcp.setRequestHandler(CallToolRequestSchema, async (_request, extra) => {
    const headers = extra.requestInfo?.headers ?? {};
    throw new Error(
      `refused: authorization="${String(headers.authorization)}" x-ha-auth="${String(headers["x-ha-auth"])}"`,
    );
  });
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: () => randomUUID() });
  await mcp.connect(transport);
  http = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = chunks.length ? JSON.parse(Buffer.concat(chunks).toString("utf8")) : undefined;
    if (body?.method === "tools/call" && body.params?.name === "proxy_fail") {
      res.writeHead(502, { "content-type": "text/plain" });
      res.end(`502 upstream gone; request had Authorization: ${req.headers.authorization}`);
      return;
    }
    await transport.handleRequest(req, res, body);
  });
  await new Promise<void>((resolve) => http?.listen(0, "127.0.0.1", resolve));
  const address = http.address();
  if (!address || typeof address === "string") throw new Error("no port");
  return `http://127.0.0.1:${address.port}/mcp`;
}

function textOf(message: Message | undefined): string {
  if (message?.role !== "toolResult") return "";
  return message.content.map((block) => (block.type === "text" ? block.text : "")).join("");
}

/**
 * Runs one owner turn whose model calls `tools` of the MCP server `home` at once; checks
 * that no secret reaches what the model reads next or the stored turn; returns the stored
 * results in the order of `tools`.
 */
async function callTools(home: Record<string, unknown>, tools: string[]): Promise<Message[]> {
  const provider = createFakeProvider({
    script: [
      { toolCalls: tools.map((name) => ({ name, arguments: {} })) },
      { text: "The house did not answer." },
    ],
  });
  const mcp = { connectTimeoutMs: 20_000, callTimeoutMs: 10_000, servers: { home } };
  const own = createHarness({ providers: { fake: provider }, config: { tools: { mcp } } });
  harness = own;
  await own.agent.ready();
  for (const tool of tools) expect(own.agent.toolNames()).toContain(tool);
  const result = await own.agent.chat(ownerRequest("check the house"));
  expect(result.error).toBeUndefined();
  const results = own.messages(result.sessionKey).filter((m) => m.role === "toolResult");
  expect(results).toHaveLength(tools.length);
  // What the model read: the request after the tool results, as the provider received it.
  const read = JSON.stringify(provider.requests.at(-1)?.messages);
  const stored = JSON.stringify(own.messages(result.sessionKey));
  for (const secret of SECRETS) {
    expect(read).not.toContain(secret);
    expect(stored).not.toContain(secret);
  }
  return tools.map((tool) => {
    const found = results.find((m) => m.role === "toolResult" && m.toolName === tool);
    if (!found) throw new Error(`no result for ${tool}`);
    return found;
  });
}

describe("an MCP tool call's result text", () => {
  it("hides the stdio server's env token in a JSON-RPC error, an isError result and an answer", async () => {
    const home = {
      transport: "stdio",
      command: process.execPath,
      args: [leakyServer],
      env: { HA_TOKEN: ENV_TOKEN },
    };
    const [rpc, result, answer] = await callTools(home, [
      "mcp__home__fail_rpc",
      "mcp__home__fail_result",
      "mcp__home__show_config",
    ]);
    expect(rpc?.role === "toolResult" && rpc.isError).toBe(true);
    expect(textOf(rpc)).toContain("MCP tool home/fail_rpc failed");
    expect(textOf(rpc)).toContain('upstream refused token "[redacted]"');
    expect(result?.role === "toolResult" && result.isError).toBe(true);
    expect(textOf(result)).toBe("cannot reach Home Assistant with token [redacted]");
    expect(answer?.role === "toolResult" && answer.isError).toBe(false);
    expect(textOf(answer)).toBe("connected to Home Assistant as [redacted]");
  }, 40_000);

  it("hides the HTTP server's Authorization and custom header in a JSON-RPC error and a proxy's 502", async () => {
    const home = {
      transport: "http",
      url: await headerQuotingEndpoint(),
      headers: { Authorization: AUTHORIZATION, "X-HA-Auth": CUSTOM_HEADER },
    };
    const [rpc, proxy] = await callTools(home, ["mcp__home__fail_rpc", "mcp__home__proxy_fail"]);
    expect(rpc?.role === "toolResult" && rpc.isError).toBe(true);
    expect(textOf(rpc)).toContain("MCP tool home/fail_rpc failed");
    expect(textOf(rpc)).toContain('authorization="[redacted]" x-ha-auth="[redacted]"');
    expect(proxy?.role === "toolResult" && proxy.isError).toBe(true);
    expect(textOf(proxy)).toContain("MCP tool home/proxy_fail failed");
    expect(textOf(proxy)).toContain("502");
    expect(textOf(proxy)).toContain("Authorization: [redacted]");
  }, 40_000);
});
