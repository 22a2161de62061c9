/**
 * Home Assistant's voice assistant over Wyoming (issue 40): the server `clawbox run`
 * starts after READY when `wyoming.enabled`, the events it speaks, and its status file
 * for `clawbox channels status`, `doctor` and the console.
 */
export { peerAllowed } from "./allow-from.ts";
export { describeServer } from "./describe-server.ts";
export { voiceAgentName } from "./info-event.ts";
export { MAX_TRANSCRIPT_CHARS } from "./voice-turn.ts";
export {
  type WyomingReport,
  wyomingChannelStatus,
  wyomingDoctorChecks,
  wyomingReport,
  zeroconfWanted,
} from "./wyoming-report.ts";
export {
  FRAME_LIMITS,
  FRAME_TIMEOUT_MS,
  IDLE_TIMEOUT_MS,
  MAX_CONNECTIONS,
  startWyomingServer,
  type WyomingServer,
  type WyomingServerDeps,
} from "./wyoming-server.ts";
export { readWyomingStatus, type WyomingStatus, wyomingStatusFile } from "./wyoming-status.ts";
export { type Announcement, announceWyoming } from "./zeroconf-announcer.ts";
