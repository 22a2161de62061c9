/**
 * The `<available_skills>` block: only name, description and location of each skill;
 * the model reads the full SKILL.md on demand. A compact form (no descriptions) and a
 * shortened list are the budget planner's first degradation steps.
 */
export interface ListedSkill {
  name: string;
  description: string;
  path: string;
}

export type SkillsListMode = "full" | "compact";

const escapeXml = (s: string): string =>
  s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");

export function renderSkillsList(skills: readonly ListedSkill[], mode: SkillsListMode): string {
  if (skills.length === 0) return "";
  const lines = ["<available_skills>"];
  for (const skill of skills) {
    if (mode === "full") {
      lines.push(
        `<skill><name>${escapeXml(skill.name)}</name><description>${escapeXml(skill.description)}</description><location>${escapeXml(skill.path)}</location></skill>`,
      );
    } else {
      lines.push(
        `<skill><name>${escapeXml(skill.name)}</name><location>${escapeXml(skill.path)}</location></skill>`,
      );
    }
  }
  lines.push("</available_skills>");
  return lines.join("\n");
}
