/**
 * The configuration: `clawbox.json` (JSON5) read, checked against one schema assembled
 * from each area's section, with environment overrides and key-path errors; edited in
 * place (comments kept, atomic write) and watched for live reloads.
 */
export {
  type ConfigEdit,
  type ConfigValue,
  type EditConfigOptions,
  editConfigFile,
  previewConfigEdit,
} from "./config-file-edit.ts";
export { ENV_OVERRIDES } from "./env-overrides.ts";
export {
  type ConfigIssue,
  defaultConfig,
  formatIssue,
  type LoadConfigOptions,
  type LoadedConfig,
  loadConfig,
  parseConfigText,
  validateConfig,
} from "./load-config.ts";
export { loadServerSection } from "./load-server-section.ts";
export { isLoopbackHost } from "./loopback-host.ts";
export { type ClawboxConfig, configSchema } from "./schema.ts";
export type { AgentConfig } from "./sections/agent.ts";
export type { BackupConfig } from "./sections/backup.ts";
export type {
  ChannelsConfig,
  QqChannelConfig,
  WecomAppConfig,
  WecomBotConfig,
} from "./sections/channels.ts";
export type { ContextConfig } from "./sections/context.ts";
export type { CameraConfig, DevicesDefaults, SshHostConfig } from "./sections/devices.ts";
export type { HomeAssistantConfig } from "./sections/home-assistant.ts";
export type { MemoryConfig } from "./sections/memory.ts";
export type {
  AnthropicProviderConfig,
  LocalProviderConfig,
  ModelsConfig,
  OpenAIProviderConfig,
  ProviderConfig,
} from "./sections/models.ts";
export { defaultLlamaThreads } from "./sections/models.ts";
export type { MqttConfig } from "./sections/mqtt.ts";
export type { CronConfig, FollowupsConfig, HeartbeatConfig } from "./sections/scheduler.ts";
export type { ServerConfig } from "./sections/server.ts";
export type { LogConfig } from "./sections/system.ts";
export type {
  FileLimits,
  McpConfig,
  McpServerConfig,
  ToolFilter,
  ToolProfile,
  ToolsConfig,
} from "./sections/tools.ts";
export { DEFAULT_VOICE_TOOLS, type WyomingConfig } from "./sections/wyoming.ts";
export { generateToken } from "./token-strength.ts";
export { type WatchConfigFileOptions, watchConfigFile } from "./watch-config-file.ts";
