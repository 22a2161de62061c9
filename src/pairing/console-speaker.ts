/**
 * Which owner the web console speaks as: `cli`, the box's own terminal identity, while
 * it is an owner (removing and adding it back must not make the console speak as a QQ
 * owner because `cli` now comes last); else the first owner; `web:owner` when there is
 * none. `clawbox pairing remove` warns before removing this id or `cli`.
 */
import { CLI_SENDER } from "../sessions/index.ts";

export function consoleSpeaker(owners: readonly string[]): string {
  return owners.includes(CLI_SENDER) ? CLI_SENDER : (owners[0] ?? "web:owner");
}

/**
 * Who loses their owner rights when `ownerId` is removed from `owners`: the terminal
 * (`clawbox chat` speaks as `cli`) and/or the console; undefined for anyone else.
 */
export function removalWarning(owners: readonly string[], ownerId: string): string | undefined {
  if (!owners.includes(ownerId)) return undefined;
  const speakers = [
    ...(ownerId === CLI_SENDER ? ["this terminal (clawbox chat, cron, context)"] : []),
    ...(consoleSpeaker(owners) === ownerId ? ["the web console"] : []),
  ];
  if (speakers.length === 0) return undefined;
  const rest = owners.filter((o) => o !== ownerId);
  const after = consoleSpeaker(rest);
  const console =
    consoleSpeaker(owners) === ownerId
      ? rest.length > 0
        ? `; the console would then speak as ${after}`
        : "; the console would then have no owner to speak as"
      : "";
  return `${ownerId} is the owner ${speakers.join(" and ")} speak${speakers.length > 1 ? "" : "s"} as: removing it takes their owner rights (tools, private memory)${console}. clawbox pairing add ${ownerId} gives them back`;
}
