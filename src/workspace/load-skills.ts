/**
 * Skill discovery (SPEC §5). Six sources by increasing precedence: extra dirs, bundled,
 * managed (<home>/skills), personal agent skills (~/.agents/skills), project
 * (<workspace>/.agents/skills), workspace (<workspace>/skills); a skill name found in a
 * later source replaces the earlier one. Skills whose required env vars or binaries are
 * missing, or that run on another OS, are hidden (reported with the reason). Broken SKILL.md files are reported,
 * never fatal.
 */
import { accessSync, constants, readdirSync, statSync } from "node:fs";
import { delimiter, join } from "node:path";
import type { FileCache } from "./file-cache.ts";
import { parseSkillFrontMatter } from "./skill-front-matter.ts";

export type SkillSource = "extra" | "bundled" | "managed" | "personal" | "project" | "workspace";

export interface SkillDir {
  source: SkillSource;
  dir: string;
}

export interface Skill {
  name: string;
  description: string;
  /** Absolute path of SKILL.md (the model reads it on demand). */
  path: string;
  source: SkillSource;
  requires: { env: string[]; bins: string[] };
}

export interface HiddenSkill {
  name: string;
  path: string;
  source: SkillSource;
  reason: string;
}

export interface SkillSet {
  available: Skill[];
  hidden: HiddenSkill[];
  /** Overridden by a higher-precedence source. */
  shadowed: { name: string; path: string; source: SkillSource; by: SkillSource }[];
}

export interface SkillEnvironment {
  env: Record<string, string | undefined>;
  hasBin(name: string): boolean;
  /** `process.platform` unless given (tests). */
  platform?: string;
}

export function processSkillEnvironment(
  env: Record<string, string | undefined> = process.env,
): SkillEnvironment {
  const found = new Map<string, boolean>();
  return {
    env,
    hasBin(name) {
      const known = found.get(name);
      if (known !== undefined) return known;
      const dirs = (env.PATH ?? "").split(delimiter).filter((d) => d.length > 0);
      const ok = dirs.some((dir) => {
        try {
          accessSync(join(dir, name), constants.X_OK);
          return true;
        } catch {
          return false;
        }
      });
      found.set(name, ok);
      return ok;
    },
  };
}

function listSkillFiles(dir: string): string[] {
  let names: string[];
  try {
    names = readdirSync(dir).sort();
  } catch {
    return [];
  }
  const out: string[] = [];
  for (const name of names) {
    if (name.startsWith(".")) continue;
    const file = join(dir, name, "SKILL.md");
    try {
      if (statSync(file).isFile()) out.push(file);
    } catch {
      // A folder without SKILL.md is not a skill.
    }
  }
  return out;
}

export async function loadSkills(
  dirs: readonly SkillDir[],
  cache: FileCache,
  environment: SkillEnvironment,
): Promise<SkillSet> {
  const byName = new Map<string, Skill | HiddenSkill>();
  const shadowed: SkillSet["shadowed"] = [];
  const broken: HiddenSkill[] = [];
  for (const { source, dir } of dirs) {
    for (const path of listSkillFiles(dir)) {
      const read = cache.read(path);
      if (!read.ok) continue;
      const fm = await (cache.derive(path, "skill-front-matter", parseSkillFrontMatter) ??
        parseSkillFrontMatter(read.text));
      if (!fm.ok) {
        broken.push({ name: path, path, source, reason: `invalid SKILL.md: ${fm.error}` });
        continue;
      }
      const { name, description, env, bins, anyBins, os } = fm.value;
      const missingEnv = env.filter((v) => !environment.env[v]);
      const missingBins = bins.filter((b) => !environment.hasBin(b));
      const noneOf = anyBins.length > 0 && !anyBins.some((b) => environment.hasBin(b));
      const platform = environment.platform ?? process.platform;
      const otherOs = os.length > 0 && !os.includes(platform);
      const previous = byName.get(name);
      if (previous)
        shadowed.push({ name, path: previous.path, source: previous.source, by: source });
      if (missingEnv.length > 0 || missingBins.length > 0 || noneOf || otherOs) {
        const why = [
          ...(missingEnv.length ? [`missing env ${missingEnv.join(", ")}`] : []),
          ...(missingBins.length ? [`missing binary ${missingBins.join(", ")}`] : []),
          ...(noneOf ? [`needs one of the binaries ${anyBins.join(", ")}`] : []),
          ...(otherOs ? [`runs on ${os.join(", ")} only`] : []),
        ].join("; ");
        byName.set(name, { name, path, source, reason: why });
      } else {
        byName.set(name, { name, description, path, source, requires: { env, bins } });
      }
    }
  }
  const available: Skill[] = [];
  const hidden: HiddenSkill[] = [...broken];
  for (const value of byName.values()) {
    if ("reason" in value) hidden.push(value);
    else available.push(value);
  }
  available.sort((a, b) => a.name.localeCompare(b.name));
  return { available, hidden, shadowed };
}
