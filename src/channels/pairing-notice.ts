/**
 * What happens when a stranger's `/pair` made a new code: one log line for every
 * request (who, on which channel, how many wait, who was told), and a notice to the first
 * owner reachable on an enabled channel who has not been told within the notice interval.
 * The interval counts per owner and a notice counts once queued, so an owner who became
 * one since the last notice (or a notice that reached nobody) is told of the next request.
 * A box whose owners are only `cli` and the console has the request on the Owners page,
 * in `clawbox pairing list` and in the log.
 */
import type { ChannelsConfig } from "../config/index.ts";
import { errorMessage } from "../errors/index.ts";
import { ownerNotice, type PairingRequest, type PairingRequests } from "../pairing/index.ts";
import type { Logger } from "../system/index.ts";
import type { ChannelTarget } from "./channel.ts";
import { ownerTargets } from "./owner-channels.ts";

export interface PairingNoticeDeps {
  requests: PairingRequests;
  /** Read at each request: owners added since are considered. */
  owners: () => readonly string[];
  channels: () => ChannelsConfig;
  deliver(target: ChannelTarget, text: string): unknown;
  logger: Logger;
}

/** Logs the request and tells an owner who is due a notice; returns who was told. */
export function noticePairingRequest(
  deps: PairingNoticeDeps,
  request: PairingRequest,
  waiting: number,
  fresh = true,
): string | undefined {
  if (!fresh) {
    // The same person asked again after the quiet minute: their code went out again.
    deps.logger.info("pairing code sent again", {
      code: request.display,
      who: request.senderName ? `${request.senderName} (${request.ownerId})` : request.ownerId,
      channel: request.channel,
    });
    return undefined;
  }
  const text = ownerNotice(request, waiting);
  let told: string | undefined;
  let reachable = 0;
  for (const owner of deps.owners()) {
    const target = ownerTargets(deps.channels(), owner)[0];
    if (!target) continue;
    reachable += 1;
    if (!deps.requests.noticeDue(owner)) continue;
    try {
      deps.deliver(target, text);
      deps.requests.noticeSent(owner);
      told = owner;
      break;
    } catch (error) {
      deps.logger.warn("pairing notice not sent", { owner, error: errorMessage(error) });
    }
  }
  deps.logger.info("pairing requested", {
    code: request.display,
    who: request.senderName ? `${request.senderName} (${request.ownerId})` : request.ownerId,
    channel: request.channel,
    waiting,
    told:
      told ??
      (reachable === 0
        ? "no owner is reachable on a channel: approve it on the console's Owners page or with clawbox pairing list"
        : "every reachable owner was told of a request within the last 10 minutes"),
  });
  return told;
}
