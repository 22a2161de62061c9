/**
 * Who a session belongs to (SPEC §9a). A principal is the owner (everyone in
 * `agent.owners` is one owner), one stranger (their sender id: `qq:OPENID`, `web:local`,
 * `mqtt:home-assistant`), one group (`group:qq:GROUPID`) or the household (voice rooms). A session records its
 * principal when it is created; a turn from another principal never lands in it.
 */
import { identityOf } from "./channel-identities.ts";

export type Principal = string;

export const OWNER: Principal = "owner";

/** A turn that names no sender at all (never an owner). */
export const ANONYMOUS: Principal = "anonymous";

/**
 * The household speaking to the box from a Home Assistant room (a voice satellite): one
 * principal for every room, so the rooms share their memory, and never the owner: its
 * tools are `wyoming.tools` and it reads no owner-private file (docs/SECURITY.md).
 */
export const HOUSEHOLD: Principal = "household";
export function groupPrincipal(channel: string, groupId: string): Principal {
  return `group:${identityOf(channel).identity}:${groupId}`;
}

/** In words, for refusals: "the owner", "qq:OPENID", "the group qq:G1". */
export function describePrincipal(principal: Principal): string {
  if (principal === OWNER) return "the owner";
  if (principal === HOUSEHOLD) return "the household (a Home Assistant voice room)";
  if (principal.startsWith("group:")) return `the group ${principal.slice("group:".length)}`;
  return principal;
}
