/**
 * Which of Home Assistant's tools a local (small) model is offered this turn. HA can
 * expose dozens of tools, and every schema costs a small model context and attention,
 * so a local model gets at most `homeAssistant.localModelTools` of them: those whose
 * name, description or entities match the words of the message, best first. Entities
 * come from HA's own overview (the "Static Context" YAML of HA's Assist prompt:
 * `- names: Kitchen Light / domain: light / areas: Kitchen`, HA's
 * `homeassistant/components/mcp_server/llm_api.py` over `helpers/llm.py`); a message
 * naming an entity or area favours the tools of that entity's domain. No tool name is
 * known here: everything is read from HA's list. The choice and its reasons go to the
 * context report (`/context`), so the owner can see why a tool was or was not offered.
 */
import type { AgentTool } from "../tools/index.ts";

export interface HomeAssistantEntity {
  names: string[];
  domain: string;
  areas: string[];
}

export interface ToolChoice {
  tools: AgentTool[];
  /** One line per offered tool: its name and the words that matched. */
  offered: { name: string; why: string }[];
  /** HA tools the policy allowed (before the cut). */
  of: number;
  max: number;
}

const STOP = new Set(
  "the a an to of in at is it and or for me my you your i can could would please what how do does this that with".split(
    " ",
  ),
);
const CJK = /[\u3400-\u9fff]/;

/** Lower-case words: `intent__HassTurnOff` → intent, hass, turn, off. */
function wordsOf(text: string): Set<string> {
  const split = text
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((w) => w.length > 1 && !STOP.has(w));
  return new Set(split);
}

/** Entities from HA's Static Context YAML; lines it does not know are skipped. */
export function parseEntityOverview(text: string | undefined): HomeAssistantEntity[] {
  if (!text) return [];
  const entities: HomeAssistantEntity[] = [];
  let current: HomeAssistantEntity | undefined;
  const list = (value: string) =>
    value
      .replace(/^['"]|['"]$/g, "")
      .split(",")
      .map((s) => s.trim())
      .filter(Boolean);
  for (const line of text.split("\n")) {
    const item = /^-\s+(\w+):\s*(.*)$/.exec(line);
    const field = item ?? /^\s+(\w+):\s*(.*)$/.exec(line);
    if (!field) continue;
    if (item) {
      current = { names: [], domain: "", areas: [] };
      entities.push(current);
    }
    if (!current) continue;
    const [, key, value = ""] = field;
    if (key === "names" || key === "name") current.names.push(...list(value));
    else if (key === "domain") current.domain = value.trim();
    else if (key === "areas") current.areas.push(...list(value));
  }
  return entities.filter((e) => e.domain && e.names.length > 0);
}

/** Whether `message` names `phrase` (whole words; CJK names as substrings). */
function mentions(message: string, phrase: string): boolean {
  const p = phrase.toLowerCase();
  if (p.length < 2) return false;
  if (CJK.test(p)) return message.includes(p);
  return new RegExp(
    `(^|[^\\p{L}\\p{N}])${p.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}($|[^\\p{L}\\p{N}])`,
    "u",
  ).test(message);
}

const propertiesOf = (tool: AgentTool): Record<string, unknown> => {
  const properties = tool.parameters.properties;
  return properties && typeof properties === "object"
    ? (properties as Record<string, unknown>)
    : {};
};

/** The domain part of HA's `<domain>__<Tool>` names, when a name has one. */
const domainOf = (name: string) =>
  name.includes("__") ? name.split("__")[0]?.toLowerCase() : undefined;

export function chooseHomeAssistantTools(
  tools: AgentTool[],
  message: string,
  max: number,
  entities: HomeAssistantEntity[],
): ToolChoice {
  const text = message.toLowerCase();
  const said = wordsOf(message);
  const named = entities.filter(
    (e) => e.names.some((n) => mentions(text, n)) || e.areas.some((a) => mentions(text, a)),
  );
  const scored = tools.map((tool, order) => {
    const own = wordsOf(`${tool.name} ${tool.description}`);
    const hits = [...said].filter((w) => own.has(w));
    const domain = domainOf(tool.name);
    const byName = "name" in propertiesOf(tool);
    // A named entity favours its domain's tools and the tools that take an entity's name.
    const entityHit = named.find((e) => byName || domain === e.domain.toLowerCase());
    const score = hits.length * 2 + (entityHit ? 1 : 0);
    const why = [
      ...(hits.length ? [`words ${hits.join(", ")}`] : []),
      ...(entityHit ? [`entity ${entityHit.names[0]} (${entityHit.domain})`] : []),
    ].join("; ");
    return { tool, order, score, why };
  });
  const chosen = scored
    .filter((s) => s.score > 0)
    .sort((a, b) => b.score - a.score || a.order - b.order)
    .slice(0, max);
  return {
    tools: chosen.map((c) => c.tool),
    offered: chosen.map((c) => ({ name: c.tool.name, why: c.why })),
    of: tools.length,
    max,
  };
}

/** The choice as the context report shows it. */
export function formatToolChoice(choice: ToolChoice): string {
  const head = `Home Assistant tools for the local model (last turn): ${choice.offered.length} of ${choice.of} offered (at most ${choice.max}, those matching the message)`;
  return [head, ...choice.offered.map((o) => `  ${o.name}: ${o.why}`)].join("\n");
}
