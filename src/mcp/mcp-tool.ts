/**
 * An MCP server's tool as an AgentTool: namespaced `mcp__<server>__<tool>` (so two
 * servers never collide and policy patterns like "mcp__home__*" work), group "mcp",
 * and its result content mapped to text/image blocks. Every text block the model reads,
 * a success's, an `isError` result's or a failed call's, is cleaned of the server's own
 * `headers` and `env` values here, in one place (docs/SECURITY.md, "Secrets").
 */
import type { ImageContent, TextContent } from "../messages/index.ts";
import { type AgentTool, errorOutput, type ToolOutput } from "../tools/index.ts";
import type { McpConnection, McpToolInfo } from "./mcp-connection.ts";

const MAX_NAME = 64;

/** `mcp__<server>__<tool>` with characters providers reject replaced by "_". */
export function mcpToolName(server: string, tool: string): string {
  return `mcp__${server}__${tool}`.replace(/[^a-zA-Z0-9_-]/g, "_").slice(0, MAX_NAME);
}

function mapContent(items: unknown[]): (TextContent | ImageContent)[] {
  const out: (TextContent | ImageContent)[] = [];
  for (const item of items) {
    const block = item as {
      type?: string;
      text?: string;
      data?: string;
      mimeType?: string;
      resource?: { text?: string; uri?: string };
    };
    if (block.type === "text" && typeof block.text === "string")
      out.push({ type: "text", text: block.text });
    else if (block.type === "image" && typeof block.data === "string")
      out.push({ type: "image", data: block.data, mimeType: block.mimeType ?? "image/png" });
    else if (block.type === "resource" && block.resource)
      out.push({
        type: "text",
        text: block.resource.text ?? `[resource ${block.resource.uri ?? ""}]`,
      });
    else out.push({ type: "text", text: JSON.stringify(item) });
  }
  return out.length ? out : [{ type: "text", text: "(no output)" }];
}

/** `name`: the tool's name for the model; Home Assistant's tools keep the names HA gives them. */
export function createMcpTool(
  connection: McpConnection,
  info: McpToolInfo,
  name = mcpToolName(connection.name, info.name),
): AgentTool {
  return {
    name,
    description: info.description ?? `${info.name} (MCP server ${connection.name})`,
    parameters:
      info.inputSchema?.type === "object" ? info.inputSchema : { type: "object", properties: {} },
    group: "mcp",
    async execute(args, ctx) {
      let output: ToolOutput;
      try {
        const result = await connection.call(info.name, args, ctx.signal);
        output = { content: mapContent(result.content), isError: result.isError };
      } catch (error) {
        output = errorOutput(error);
      }
      // A server (or the proxy in front of it) may quote its token or header back, in a
      // failure or an answer; the model may be a cloud model and the sender a stranger.
      return {
        ...output,
        content: output.content.map((block) =>
          block.type === "text" ? { type: "text", text: connection.scrub(block.text) } : block,
        ),
      };
    },
  };
}
