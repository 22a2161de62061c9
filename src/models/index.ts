/** Model files: GGUF header reading and pre-load validation. */
export {
  type GgufArraySummary,
  type GgufHeader,
  type GgufMetadataValue,
  type GgufScalar,
  readGgufHeader,
} from "./gguf-header.ts";
export { type ValidateModelOptions, validateModelFile } from "./gguf-validate-model-file.ts";
export {
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
export { type PullFileResult, type PullProgress, pullFile } from "./pull-file.ts";
export { type PullModelResult, pullModel } from "./pull-model.ts";
export { createProgressPrinter, formatProgress } from "./pull-progress.ts";
