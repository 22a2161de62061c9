/** Model files: GGUF header reading and validation, the manifest, pulls, recommendation and activation. */

export {
  type Activation,
  activateIfUnset,
  activateModel,
  localProviderId,
} from "./activate-pulled-model.ts";
export { editModelSettings, type ModelSettingsEdit } from "./config-file-edit.ts";
export {
  type GgufArraySummary,
  type GgufHeader,
  type GgufMetadataValue,
  type GgufScalar,
  readGgufHeader,
} from "./gguf-header.ts";
export { type ValidateModelOptions, validateModelFile } from "./gguf-validate-model-file.ts";
export {
  type InstalledChatModel,
  installedChatModels,
  readInstalledChatModel,
} from "./installed-chat-model.ts";
export {
  type ChatManifestModel,
  defaultManifestPath,
  type EmbeddingManifestModel,
  findManifestModel,
  loadManifest,
  type Manifest,
  type ManifestFile,
  type ManifestModel,
} from "./manifest.ts";
export {
  type InstalledModel,
  installedModelDir,
  readInstalledModel,
} from "./manifest-installed.ts";
export { missingModelHint, missingModelPullCommand, noModelNotice } from "./missing-model-hint.ts";
export { pullCommand, pullCommandFor } from "./pull-command.ts";
export { type PullFileResult, type PullProgress, pullFile } from "./pull-file.ts";
export { type PullModelResult, pullModel } from "./pull-model.ts";
export { createProgressPrinter, formatProgress } from "./pull-progress.ts";
export {
  type BoardResources,
  boardResources,
  type ChatRecommendation,
  chatModels,
  DISK_MARGIN_MB,
  recommendChatModel,
} from "./recommend-model.ts";
