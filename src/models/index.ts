/** Model files: GGUF header reading and pre-load validation. */
export {
  type GgufArraySummary,
  type GgufHeader,
  type GgufMetadataValue,
  type GgufScalar,
  readGgufHeader,
} from "./gguf-header.ts";
export { type ValidateModelOptions, validateModelFile } from "./gguf-validate-model-file.ts";
