/**
 * Who the owners are is `agent.owners` in the config file; pairing and the console's
 * Owners page change that list there (comments kept, validated, atomic write) and the
 * running service applies it at once (its config watcher, or the console's reload).
 * An approval adds exactly the `<channel>:<id>` the code was issued to. The last owner is
 * never removed this way, so the box keeps someone who can approve the next one, and a
 * caller may protect more ids (the console keeps the id it speaks as: removing it would
 * turn the console into another owner's voice and the CLI into a stranger).
 */
import { editConfigFile, loadConfig } from "../config/index.ts";
import { ClawboxError } from "../errors/index.ts";
import type { PairingRequest, PairingRequests } from "./pairing-requests.ts";

export interface OwnersFile {
  file: string;
  env: Record<string, string | undefined>;
}

/** `agent.owners` as the box would load it now. */
export function currentOwners(target: OwnersFile): string[] {
  return [...loadConfig({ file: target.file, env: target.env }).config.agent.owners];
}

async function writeOwners(target: OwnersFile, owners: string[]): Promise<void> {
  await editConfigFile(target.file, [{ path: ["agent", "owners"], value: owners }], {
    validate: { env: target.env },
  });
}

/** Adds `ownerId`; returns the new list (unchanged when it was there already). */
export async function addOwner(target: OwnersFile, ownerId: string): Promise<string[]> {
  const owners = currentOwners(target);
  if (owners.includes(ownerId)) return owners;
  const next = [...owners, ownerId];
  await writeOwners(target, next);
  return next;
}

/**
 * Removes `ownerId`; returns the new list. Refuses an unknown id (NOT_FOUND), the last
 * owner and `keep`, the id the caller speaks as (OWNER_REQUIRED).
 */
export async function removeOwner(
  target: OwnersFile,
  ownerId: string,
  keep?: { id: string; why: string },
): Promise<string[]> {
  const owners = currentOwners(target);
  if (!owners.includes(ownerId)) {
    // Owners are "channel:id": a bare id that matches one is named in full.
    const meant = owners.filter((id) => id.slice(id.indexOf(":") + 1) === ownerId);
    throw new ClawboxError("NOT_FOUND", `${ownerId} is not in agent.owners`, {
      hint:
        meant.length > 0
          ? `owners are named with their channel: did you mean ${meant.map((id) => `clawbox pairing remove ${id}`).join(" or ")}?`
          : "see clawbox pairing list",
    });
  }
  if (owners.length === 1)
    throw new ClawboxError(
      "OWNER_REQUIRED",
      `${ownerId} is the only owner, and the box needs one to approve the next; pair or add another owner first`,
    );
  if (keep && keep.id === ownerId)
    throw new ClawboxError("OWNER_REQUIRED", `${ownerId} cannot be removed here: ${keep.why}`);
  const next = owners.filter((id) => id !== ownerId);
  await writeOwners(target, next);
  return next;
}

/** Approves the pending request with `code`: its sender becomes an owner. */
export async function approvePairing(
  requests: PairingRequests,
  target: OwnersFile,
  code: string,
): Promise<PairingRequest> {
  const request = requests.find(code);
  await addOwner(target, request.ownerId);
  requests.remove(request.code);
  return request;
}

/** Denies the pending request with `code`: it is dropped; its sender is not told. */
export function denyPairing(requests: PairingRequests, code: string): PairingRequest {
  const request = requests.find(code);
  requests.remove(request.code);
  return request;
}
