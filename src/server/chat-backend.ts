/**
 * What the HTTP server needs from the agent: run a chat turn with streamed events and
 * report model state. Declared here (structurally matching the agent's public API) so
 * the server can be tested with any backend and does not depend on agent internals.
 */
import type { TurnEventLike } from "../agent/index.ts";
import type { Provider } from "../providers/index.ts";

/** A turn's event, read by its fields (the agent's `AgentEvent`, or a test's). */
export type ChatBackendEvent = TurnEventLike;

export interface ChatBackendRequest {
  sessionKey: string;
  text: string;
  /** Pictures sent with the text (base64), as the agent's `ImageContent`. */
  images?: { type: "image"; data: string; mimeType: string }[];
  channel: string;
  senderId?: string;
  chatType: "direct" | "group" | "system";
  /** The request carried the owner's `server.token`. */
  authenticatedOwner?: boolean;
  onEvent?: (event: ChatBackendEvent) => void;
  signal?: AbortSignal;
}

export interface ChatBackendResult {
  sessionId: string;
  sessionKey: string;
  reply: string;
  silent: boolean;
  error?: { code: string; message: string };
}

export interface ChatBackend {
  chat(request: ChatBackendRequest): Promise<ChatBackendResult>;
  /**
   * Whether the request's sender may add a turn to that session (it belongs to them or
   * to nobody yet); answered before a stream starts so a refusal is a plain 403.
   */
  checkSession?(request: ChatBackendRequest): { ok: true } | { ok: false; message: string };
  modelState(): Record<string, string>;
  /** The configured local models' ids, listed by `GET /v1/models` beside the agent. */
  localModelIds?(): string[];
  /** A local model as a plain model server for `/v1` (openai-api/plain-model-routes.ts). */
  localModel?(id: string): Provider | undefined;
}
