/**
 * Pairing (issue 24): how a stranger becomes an owner without anyone editing a file. They
 * send `/pair` in a direct chat and get a short code that expires; the owner approves it
 * on the console's Owners page or with `clawbox pairing approve CODE`, which adds their
 * `<channel>:<id>` to `agent.owners`. Codes, limits and the owners list live here; the
 * channels area answers `/pair`, the console and the CLI approve.
 */

export { consoleSpeaker, removalWarning } from "./console-speaker.ts";
export {
  addOwner,
  approvePairing,
  currentOwners,
  denyPairing,
  type OwnersFile,
  removeOwner,
} from "./owners-file.ts";
export { formatPairingCode, normalizePairingCode } from "./pairing-code.ts";
export {
  alreadyOwnerReply,
  approvedText,
  busyReply,
  codeReply,
  groupPairReply,
  ownerNotice,
  pendingReply,
} from "./pairing-messages.ts";
export {
  DEFAULT_PAIRING_LIMITS,
  type PairAnswer,
  type PairAsk,
  type PairingLimits,
  type PairingRequest,
  PairingRequests,
} from "./pairing-requests.ts";
