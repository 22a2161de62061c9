/**
 * One MCP server connection (official SDK client over stdio or streamable HTTP).
 * Connecting and listing tools are bounded by `connectTimeoutMs` and never awaited by
 * startup; every call is bounded by `callTimeoutMs` and the run's AbortSignal, so a
 * server that hangs costs one error result, never a stalled turn. A dropped or failed
 * connection reconnects with backoff (first delay `reconnectDelayMs`, at most 60 s).
 * The SDK is imported on the first connection, so a box without MCP servers never
 * loads it (startup time and idle memory).
 */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { FetchLike, Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { McpConfig, McpServerConfig } from "../config/index.ts";
import { ClawboxError, toClawboxError } from "../errors/index.ts";
import { collectSecrets, type Logger, redact } from "../system/index.ts";

const version = "0.1.0";

export interface McpToolInfo {
  name: string;
  description?: string;
  inputSchema: Record<string, unknown>;
}

export interface McpCallResult {
  content: unknown[];
  isError: boolean;
}

export type McpState = "idle" | "connecting" | "ready" | "failed" | "closed";

const MAX_BACKOFF_MS = 60_000;

function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new ClawboxError("TOOL_FAILED", `${what} timed out after ${ms} ms`)),
      ms,
    );
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

export class McpConnection {
  state: McpState = "idle";
  tools: McpToolInfo[] = [];
  /** The text of `options.prompt` as of the last connection, when the server had it. */
  promptText: string | undefined;
  lastError: string | undefined;
  private client: Client | undefined;
  private connecting: Promise<void> | undefined;
  private retryTimer: ReturnType<typeof setTimeout> | undefined;
  private failures = 0;
  /**
   * This server's own `headers` and `env` values (`collectSecrets`): an endpoint or a
   * proxy that quotes the request back in its refusal must not put them into the
   * recorded connection failure, which the log, the status and a model's "not reachable"
   * tool error all show, nor into a tool's result text (`scrub`, used by mcp-tool.ts).
   */
  private readonly secrets: string[];

  constructor(
    readonly name: string,
    private readonly server: McpServerConfig,
    private readonly limits: Pick<
      McpConfig,
      "connectTimeoutMs" | "callTimeoutMs" | "reconnectDelayMs"
    >,
    private readonly logger: Logger,
    private readonly options: {
      /** The HTTP transport's fetch (Home Assistant's adds and guards its token: home-assistant-fetch.ts). */
      fetch?: FetchLike;
      /** Secrets the server config does not hold (that fetch's token). */
      secrets?: string[];
      /** A prompt to read after listing tools (`promptText`); a failure to read it is no failure. */
      prompt?: string;
    } = {},
  ) {
    this.secrets = [...collectSecrets(server), ...(options.secrets ?? [])];
  }

  /** `text` without this server's secrets: its connection failure and every tool result text. */
  scrub(text: string): string {
    return String(redact(text, this.secrets));
  }

  private async transport(): Promise<Transport> {
    if (this.server.transport === "stdio") {
      const { getDefaultEnvironment, StdioClientTransport } = await import(
        "@modelcontextprotocol/sdk/client/stdio.js"
      );
      return new StdioClientTransport({
        command: this.server.command,
        args: this.server.args,
        env: { ...getDefaultEnvironment(), ...this.server.env },
        cwd: this.server.cwd,
        stderr: "ignore",
      });
    }
    const { StreamableHTTPClientTransport } = await import(
      "@modelcontextprotocol/sdk/client/streamableHttp.js"
    );
    return new StreamableHTTPClientTransport(new URL(this.server.url), {
      requestInit: this.server.headers ? { headers: this.server.headers } : undefined,
      ...(this.options.fetch ? { fetch: this.options.fetch } : {}),
    });
  }

  /** Connects and lists tools; resolves (never rejects) when the attempt ends. */
  connect(): Promise<void> {
    if (this.state === "closed") return Promise.resolve();
    if (this.connecting) return this.connecting;
    clearTimeout(this.retryTimer);
    this.state = "connecting";
    this.connecting = this.attempt().finally(() => {
      this.connecting = undefined;
    });
    return this.connecting;
  }

  private async attempt(): Promise<void> {
    const { Client } = await import("@modelcontextprotocol/sdk/client/index.js");
    const client = new Client({ name: "clawbox", version }, { capabilities: {} });
    try {
      const transport = await this.transport();
      await withTimeout(
        client.connect(transport, { timeout: this.limits.connectTimeoutMs }),
        this.limits.connectTimeoutMs,
        `MCP server "${this.name}": connect`,
      );
      const listed = await withTimeout(
        client.listTools(undefined, { timeout: this.limits.connectTimeoutMs }),
        this.limits.connectTimeoutMs,
        `MCP server "${this.name}": list tools`,
      );
      const prompt = this.options.prompt;
      const promptText = prompt
        ? await withTimeout(
            client.getPrompt({ name: prompt }, { timeout: this.limits.connectTimeoutMs }),
            this.limits.connectTimeoutMs,
            `MCP server "${this.name}": prompt`,
          )
            .then((got) =>
              got.messages.map((m) => (m.content.type === "text" ? m.content.text : "")).join("\n"),
            )
            .catch(() => undefined)
        : undefined;
      if (this.state === "closed") {
        await client.close().catch(() => {});
        return;
      }
      this.promptText = promptText;
      this.tools = listed.tools.map((tool) => ({
        name: tool.name,
        description: tool.description,
        inputSchema: tool.inputSchema as Record<string, unknown>,
      }));
      client.onclose = () => this.dropped("connection closed");
      client.onerror = (error) => this.logger.debug(`MCP server "${this.name}": ${error.message}`);
      this.client = client;
      this.state = "ready";
      this.failures = 0;
      this.lastError = undefined;
      this.logger.info(`MCP server "${this.name}" connected`, { tools: this.tools.length });
    } catch (error) {
      await client.close().catch(() => {});
      this.fail(this.scrub(toClawboxError(error).message));
    }
  }

  /** The server stopped answering (a call found it gone): reconnect with backoff. */
  dropped(why: string): void {
    if (this.state !== "ready") return;
    const client = this.client;
    this.client = undefined;
    this.fail(why);
    void client?.close().catch(() => {});
  }

  private fail(why: string): void {
    if (this.state === "closed") return;
    this.state = "failed";
    this.lastError = why;
    this.failures++;
    const delay = Math.min(
      MAX_BACKOFF_MS,
      this.limits.reconnectDelayMs * 2 ** Math.min(10, this.failures - 1),
    );
    this.logger.warn(`MCP server "${this.name}" unavailable; reconnecting in ${delay} ms`, {
      error: why,
    });
    this.retryTimer = setTimeout(() => void this.connect(), delay);
    this.retryTimer.unref?.();
  }

  /** Calls a tool; throws a ClawboxError (TOOL_FAILED / ABORTED) on timeout, abort or a broken server. */
  async call(
    tool: string,
    args: Record<string, unknown>,
    signal: AbortSignal,
  ): Promise<McpCallResult> {
    if (this.state !== "ready") {
      await withTimeout(
        this.connect(),
        Math.min(this.limits.connectTimeoutMs, this.limits.callTimeoutMs),
        `MCP server "${this.name}": reconnect`,
      ).catch(() => {});
    }
    const client = this.client;
    if (this.state !== "ready" || !client) {
      throw new ClawboxError(
        "TOOL_FAILED",
        `MCP server "${this.name}" is not reachable${this.lastError ? `: ${this.lastError}` : ""}`,
        {
          hint: "it reconnects automatically; try again later",
        },
      );
    }
    try {
      const result = await withTimeout(
        client.callTool({ name: tool, arguments: args }, undefined, {
          timeout: this.limits.callTimeoutMs,
          signal,
        }),
        this.limits.callTimeoutMs,
        `MCP tool ${this.name}/${tool}`,
      );
      return {
        content: Array.isArray(result.content) ? result.content : [],
        isError: result.isError === true,
      };
    } catch (error) {
      if (signal.aborted)
        throw new ClawboxError("ABORTED", `MCP tool ${this.name}/${tool} was stopped`);
      if (error instanceof ClawboxError) throw error;
      // A JSON-RPC error or a transport failure mid-call: say whose call failed.
      throw new ClawboxError(
        "TOOL_FAILED",
        `MCP tool ${this.name}/${tool} failed: ${toClawboxError(error).message}`,
      );
    }
  }

  async close(): Promise<void> {
    this.state = "closed";
    clearTimeout(this.retryTimer);
    const client = this.client;
    this.client = undefined;
    await client?.close().catch(() => {});
  }
}
