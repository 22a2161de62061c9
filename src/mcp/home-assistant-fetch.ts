/**
 * The only way the Home Assistant token leaves the box. The MCP SDK's transport calls
 * this fetch; it adds `Authorization: Bearer <token>` only to a request for the saved
 * endpoint (`<homeAssistant.url>/api/mcp`), never follows a redirect (a 3xx is a
 * failure, same origin or not, since the token would go with it), and notes what went
 * wrong in HA's own terms (401, 404, no answer) so the console and doctor can say why in
 * plain words without reading the SDK's error wording.
 */
import type { FetchLike } from "@modelcontextprotocol/sdk/shared/transport.js";
import { ClawboxError } from "../errors/index.ts";

/** What the last exchange with HA showed, when it was not a plain success. */
export type HomeAssistantProblem =
  | { kind: "refused-token"; status: number }
  | { kind: "no-mcp-server"; status: number }
  | { kind: "http-error"; status: number }
  | { kind: "redirect"; to: string }
  | { kind: "unreachable"; cause: string }
  /** The request was given up (the connect or call timeout) before HA answered. */
  | { kind: "no-answer" };

export interface GuardedFetch {
  fetch: FetchLike;
  /** The problem of the last request, cleared by a success. */
  lastProblem(): HomeAssistantProblem | undefined;
  /** Requests sent and not yet answered (a timeout while one is open means HA is slow). */
  pending(): number;
}

/** `http://ha:8123/` or `http://ha:8123/api/mcp` → `http://ha:8123/api/mcp`. */
export function homeAssistantEndpoint(url: string): string {
  const base = url.replace(/\/+$/, "").replace(/\/api\/mcp$/, "");
  return `${base}/api/mcp`;
}

/** A redirect target named without its query or fragment (they may carry codes). */
function targetOf(location: string | null, from: string): string {
  if (!location) return "(no Location)";
  try {
    const to = new URL(location, from);
    return `${to.origin}${to.pathname}`;
  } catch {
    return "(an unreadable Location)";
  }
}

function causeOf(error: unknown): string {
  const code = (error as { code?: unknown; cause?: { code?: unknown } })?.code;
  const nested = (error as { cause?: { code?: unknown } })?.cause?.code;
  const named = typeof code === "string" ? code : typeof nested === "string" ? nested : undefined;
  return named ?? (error instanceof Error ? error.name : "network error");
}

export function guardedFetch(endpoint: string, token: string): GuardedFetch {
  let problem: HomeAssistantProblem | undefined;
  let open = 0;
  const fetchHa: FetchLike = async (url, init) => {
    const target = String(url);
    if (target !== endpoint) {
      throw new ClawboxError(
        "TOOL_FAILED",
        `Home Assistant: refused to send the token to ${targetOf(target, endpoint)}; it goes only to ${endpoint}`,
      );
    }
    const headers = new Headers(init?.headers);
    headers.set("authorization", `Bearer ${token}`);
    open++;
    let response: Response;
    try {
      response = await fetch(target, { ...init, headers, redirect: "manual" });
    } catch (error) {
      problem = init?.signal?.aborted
        ? { kind: "no-answer" }
        : { kind: "unreachable", cause: causeOf(error) };
      throw error;
    } finally {
      open--;
    }
    if ((response.status >= 300 && response.status < 400) || response.type === "opaqueredirect") {
      const to = targetOf(response.headers.get("location"), target);
      problem = { kind: "redirect", to };
      await response.body?.cancel().catch(() => {});
      throw new ClawboxError(
        "TOOL_FAILED",
        `Home Assistant answered with a redirect to ${to}; the token is never sent through a redirect`,
      );
    }
    // GET (the optional SSE stream) answers 405 from HA's stateless server: not a problem.
    if (response.status === 401 || response.status === 403)
      problem = { kind: "refused-token", status: response.status };
    else if (response.status === 404) problem = { kind: "no-mcp-server", status: 404 };
    else if (response.status >= 400 && response.status !== 405)
      problem = { kind: "http-error", status: response.status };
    else if (response.ok) problem = undefined;
    return response;
  };
  return { fetch: fetchHa, lastProblem: () => problem, pending: () => open };
}
