/**
 * The workspace: seeding the default files, reading bootstrap files through a
 * (path, mtime, size) cache with a watcher, TOOLS.md device entries, and skills.
 */
export {
  BOOTSTRAP_FILE_NAMES,
  type BootstrapFileName,
  bootstrapFileNames,
  isEffectivelyEmpty,
  MINIMAL_BOOTSTRAP_FILE_NAMES,
  PRIVATE_BOOTSTRAP_FILES,
  type RunSet,
} from "./bootstrap-files.ts";
export { type CachedRead, FileCache } from "./file-cache.ts";
export {
  LinkIndex,
  type LinkScope,
  type LinkSnapshot,
  linkIndexFor,
  MAX_LINK_WALK_DEPTH,
  MAX_LINK_WALK_ENTRIES,
} from "./link-index.ts";
export {
  type InjectedFile,
  type LoadedWorkspace,
  limitBootstrapFiles,
  outsideWorkspace,
  type RawBootstrapFile,
  readBootstrapFiles,
} from "./load-bootstrap.ts";
export {
  type HiddenSkill,
  loadSkills,
  processSkillEnvironment,
  type Skill,
  type SkillDir,
  type SkillEnvironment,
  type SkillSet,
  type SkillSource,
} from "./load-skills.ts";
export { type SeedResult, seedWorkspace } from "./seed-workspace.ts";
export { parseSkillFrontMatter, type SkillFrontMatter } from "./skill-front-matter.ts";
export {
  type CameraEntry,
  cameraEntrySchema,
  maskToolsMdSecrets,
  parseToolsMd,
  type SshHostEntry,
  sshHostEntrySchema,
  type ToolsMd,
  type ToolsMdIssue,
} from "./tools-md.ts";
export { truncateBootstrap, truncationMarker } from "./truncate-bootstrap.ts";
export {
  readWorkspaceState,
  type WorkspaceState,
  workspaceStatePath,
  writeWorkspaceState,
} from "./workspace-state.ts";
export { WorkspaceWatcher } from "./workspace-watcher.ts";
