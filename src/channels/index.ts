/**
 * Messaging channels (SPEC §9): the framework every channel uses (inbox exactly once
 * in, dispatch to the agent with the per-turn envelope, outbox exactly once out,
 * access, reply shaping, attachments, status) and the channel registry. Adapters for
 * each platform live in their own folder (qq/) and load lazily after READY.
 * How to add a channel: docs/CHANNELS.md, "Adding a channel".
 */
export { type AccessDecision, type AccessPolicy, decideAccess } from "./access.ts";
export {
  type AttachmentOptions,
  MAX_IMAGE_BYTES,
  type PreparedMessage,
  prepareAttachments,
} from "./attachments.ts";
export type {
  ChannelAdapter,
  ChannelCapabilities,
  ChannelChatType,
  ChannelHost,
  ChannelState,
  ChannelTarget,
  InboundAttachment,
  InboundMessage,
  OutboxItem,
  SendOutcome,
  WebhookHandler,
} from "./channel.ts";
export type { AdapterDeps, ChannelDefinition, ChannelSettings } from "./channel-definition.ts";
export { CHANNELS, channelDefinition } from "./channel-registry.ts";
export {
  type ChannelService,
  type ChannelServiceDeps,
  createChannelService,
} from "./channel-service.ts";
export {
  type ChannelStatus,
  formatChannelStatus,
  readChannelStatus,
  writeChannelState,
} from "./channel-status.ts";
export {
  type ChannelAgent,
  Dispatcher,
  describeCapabilities,
  replyDeadline,
  WINDOW_SAFETY_MS,
} from "./dispatcher.ts";
export { channelDoctorChecks } from "./doctor-checks.ts";
export { fetchPublic, isPrivateAddress } from "./fetch-public.ts";
export { Inbox, type InboxRow, type InboxState } from "./inbox.ts";
export { MAX_SEND_ATTEMPTS, Outbox, type OutboxState } from "./outbox.ts";
export { ownerTargets } from "./owner-channels.ts";
export { enqueueProactive } from "./proactive.ts";
export { type ProbeResult, probeQq, probeWeComApp, probeWeComBot } from "./probe-channel.ts";
export { CUT_NOTE, markdownToPlain, shapeReply } from "./reply-shaping.ts";
export {
  describeSpeech,
  SPEECH_MAX_CHARS,
  type SpeechOptions,
  shapeForSpeech,
} from "./speech-shaping.ts";
export { tellRequester } from "./tell-requester.ts";
