export {
  type ChatBackend,
  type ChatBackendEvent,
  type ChatBackendRequest,
  type ChatBackendResult,
  textDeltaOf,
} from "./chat-backend.ts";
export { type AppDeps, type ChannelRoutes, createApp } from "./create-app.ts";
