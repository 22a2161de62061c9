/**
 * The OpenClaw bootstrap file set (SPEC §4), in prompt order. Names match OpenClaw's so
 * an OpenClaw workspace works as is. Subagent, cron and heartbeat runs get the minimal
 * set only.
 */
export const BOOTSTRAP_FILE_NAMES = [
  "AGENTS.md",
  "SOUL.md",
  "TOOLS.md",
  "IDENTITY.md",
  "USER.md",
  "HEARTBEAT.md",
  "BOOTSTRAP.md",
  "MEMORY.md",
] as const;

export type BootstrapFileName = (typeof BOOTSTRAP_FILE_NAMES)[number];

export const MINIMAL_BOOTSTRAP_FILE_NAMES: readonly BootstrapFileName[] = [
  "AGENTS.md",
  "TOOLS.md",
  "SOUL.md",
  "IDENTITY.md",
  "USER.md",
];

/** The owner's private files: never in a stranger's or a group chat's prompt (SPEC §9a). */
export const PRIVATE_BOOTSTRAP_FILES: readonly BootstrapFileName[] = ["USER.md", "MEMORY.md"];

/** Alternative spellings accepted on disk (first existing wins). */
export const BOOTSTRAP_FILE_ALIASES: Partial<Record<BootstrapFileName, readonly string[]>> = {
  "MEMORY.md": ["MEMORY.md", "memory.md"],
};

export type RunSet = "full" | "minimal";

export function bootstrapFileNames(set: RunSet): readonly BootstrapFileName[] {
  return set === "full" ? BOOTSTRAP_FILE_NAMES : MINIMAL_BOOTSTRAP_FILE_NAMES;
}

/**
 * True when a markdown file holds nothing but headings, blank lines and HTML comments
 * (e.g. the default HEARTBEAT.md): heartbeats are skipped for such a file.
 */
export function isEffectivelyEmpty(text: string): boolean {
  const stripped = text.replace(/<!--[\s\S]*?(-->|$)/g, "");
  return stripped
    .split("\n")
    .map((line) => line.trim())
    .every((line) => line === "" || /^#+(\s|$)/.test(line) || /^[-*]\s*$/.test(line));
}
