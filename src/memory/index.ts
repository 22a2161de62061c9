/** Memory (SPEC §8): index of memory files, hybrid search, memory tools, recall tracking, dreaming. */
export { type Chunk, type ChunkOptions, chunkMarkdown, estimateTokens } from "./chunk-markdown.ts";
export { type DoctorCheck, memoryDoctorChecks } from "./doctor-checks.ts";
export { type DreamPlan, dreamPlan } from "./dream-schedule.ts";
export {
  DREAM_PRESETS,
  type DreamCandidate,
  type DreamPreset,
  type DreamReport,
  type DreamThresholds,
} from "./dreaming.ts";
export type { Embedder } from "./embedding/embedder.ts";
export { createOnnxEmbedder, type OnnxEmbedderOptions } from "./embedding/onnx-embedder.ts";
export type { MemorySearchResponse, MemorySearchResult, SearchOptions } from "./hybrid-search.ts";
export { DREAMS_FILE, findMemoryFile, listMemoryFiles, resolveMemoryPath } from "./memory-files.ts";
export type { IndexStats } from "./memory-index.ts";
export {
  createMemory,
  type MemoryDeps,
  type MemoryService,
  type MemoryStatus,
} from "./memory-service.ts";
export { createMemoryTools, type MemoryToolDeps } from "./memory-tools.ts";
export { type MemoryBudgetReport, memoryStartupBudget } from "./startup-budget.ts";
