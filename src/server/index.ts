/**
 * The HTTP server: the local API (`/api/chat`, sessions), the OpenAI-compatible `/v1/*`
 * routes and the console's mount, behind the Host/Origin guard, the owner token and the
 * body-size limit. Every refusal is a JSON error with a stable code (docs/HTTP-API.md).
 */
export type {
  ChatBackend,
  ChatBackendEvent,
  ChatBackendRequest,
  ChatBackendResult,
} from "./chat-backend.ts";
export { type AppDeps, type ChannelRoutes, createApp } from "./create-app.ts";
export { type Listening, listenHttp } from "./listen.ts";
