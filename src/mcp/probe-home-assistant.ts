/**
 * The console's **Test** and `clawbox doctor`: one MCP handshake with Home Assistant
 * (`initialize`, then `tools/list`, as HA's stateless endpoint takes them) through the
 * same guarded fetch the box's link uses, so a test sends the token only to the address
 * being tested and never through a redirect. The answer is in plain words and names no
 * secret; it never throws.
 */
import type { HomeAssistantConfig } from "../config/index.ts";
import { ClawboxError, errorMessage } from "../errors/index.ts";
import { redact } from "../system/index.ts";
import { guardedFetch, homeAssistantEndpoint } from "./home-assistant-fetch.ts";
import { plainReason } from "./home-assistant-link.ts";

export interface HomeAssistantProbe {
  ok: boolean;
  message: string;
  tools?: string[];
}

const PROTOCOL = "2025-06-18";

export async function probeHomeAssistant(
  config: Pick<HomeAssistantConfig, "url" | "token">,
  timeoutMs = 8000,
): Promise<HomeAssistantProbe> {
  const endpoint = homeAssistantEndpoint(config.url);
  const guard = guardedFetch(endpoint, config.token);
  const signal = AbortSignal.timeout(timeoutMs);
  const post = async (id: number | undefined, method: string, params: object) => {
    const response = await guard.fetch(endpoint, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
      },
      body: JSON.stringify({ jsonrpc: "2.0", ...(id === undefined ? {} : { id }), method, params }),
      signal,
    });
    if (!response.ok) {
      await response.body?.cancel().catch(() => {});
      throw new ClawboxError("TOOL_FAILED", `HTTP ${response.status}`);
    }
    if (id === undefined) return undefined;
    const body = (await response.json()) as { result?: unknown; error?: { message?: string } };
    if (body.error)
      throw new ClawboxError("TOOL_FAILED", `${method}: ${body.error.message ?? "error"}`);
    return body.result;
  };
  try {
    await post(1, "initialize", {
      protocolVersion: PROTOCOL,
      capabilities: {},
      clientInfo: { name: "clawbox", version: "0.1.0" },
    });
    await post(undefined, "notifications/initialized", {});
    const listed = (await post(2, "tools/list", {})) as
      | { tools?: { name?: unknown }[] }
      | undefined;
    const tools = (listed?.tools ?? []).map((t) => String(t.name));
    return {
      ok: true,
      tools,
      message: `Home Assistant at ${config.url} answered: ${tools.length} tools the box can use${tools.length ? ` (${tools.slice(0, 6).join(", ")}${tools.length > 6 ? ", …" : ""})` : ""}.`,
    };
  } catch (error) {
    const problem =
      guard.lastProblem() ?? (signal.aborted ? { kind: "no-answer" as const } : undefined);
    return {
      ok: false,
      message: redact(plainReason(problem, config.url, errorMessage(error)), [
        config.token,
      ]) as string,
    };
  }
}
