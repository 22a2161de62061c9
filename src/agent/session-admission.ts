/**
 * Which session a turn runs in, and whether its sender may add a turn to it (SPEC §9a):
 * a session belongs to one principal, recorded on its first turn; a turn from another
 * principal gets a refusal (`SESSION_FORBIDDEN`, nothing stored). Scheduled runs
 * (reminders, heartbeat) happen only in the owner's sessions. A channel sender whose
 * standing changed (an owner added or removed) gets a fresh session under the same key,
 * only where the key itself is reserved for them.
 */
import { type Admission, OWNER, type Principal, type SessionResolver } from "../sessions/index.ts";
import type { SessionRow, Store } from "../store/index.ts";
import type { Logger } from "../system/index.ts";
import type { ChatRequest, ChatResult } from "./chat-request.ts";

export interface SessionAdmissionDeps {
  store: Store;
  sessions: SessionResolver;
  /** A new session's working folder. */
  workspace: string;
  logger: Logger;
}

export interface SessionAdmission {
  /** Whether `request`'s sender may add a turn to its session; nothing is created or changed. */
  check(request: ChatRequest): Admission;
  /** The session `request` runs in (created or taken over as above), or the refusal. */
  open(request: ChatRequest): { session: SessionRow } | { refused: ChatResult };
  /** The answer to a refused turn. */
  refusal(request: ChatRequest, message: string): ChatResult;
}

export function createSessionAdmission(deps: SessionAdmissionDeps): SessionAdmission {
  const { store, sessions, workspace, logger } = deps;

  /** Scheduled runs (reminders, heartbeat) happen only in the owner's sessions, as the owner. */
  const scheduled = (request: ChatRequest) =>
    request.runKind === "cron" || request.runKind === "heartbeat";

  function checkSession(request: ChatRequest): Admission {
    const principal = sessions.principalOfTurn(request);
    const stored = store.sessions.byKey(request.sessionKey);
    const decision = sessions.admit(request.sessionKey, stored, principal);
    if (decision.ok && scheduled(request) && principal !== OWNER) {
      return {
        ok: false,
        principal,
        holder: principal,
        message: `scheduled runs happen only in the owner's sessions; ${request.sessionKey} is not one`,
      };
    }
    return decision;
  }

  const refusal = (request: ChatRequest, message: string): ChatResult => ({
    sessionId: store.sessions.byKey(request.sessionKey)?.sessionId ?? "",
    sessionKey: request.sessionKey,
    reply: message,
    silent: false,
    error: { code: "SESSION_FORBIDDEN", message },
  });

  const touch = (row: SessionRow, request: ChatRequest, principal: Principal): SessionRow => {
    const deliveryContext = { channel: request.channel, to: request.groupId ?? request.senderId };
    store.sessions.update(row.sessionId, {
      chatType: request.chatType,
      deliveryContext,
      lastChannel: request.channel,
      lastTo: deliveryContext.to ?? null,
      ...(row.principal === null ? { principal } : {}),
    });
    return store.sessions.require(row.sessionId);
  };

  const createSession = (request: ChatRequest, principal: Principal): SessionRow =>
    store.sessions.create({
      sessionKey: request.sessionKey,
      chatType: request.chatType,
      deliveryContext: { channel: request.channel, to: request.groupId ?? request.senderId },
      principal,
      cwd: workspace,
    });

  /**
   * The session `request` runs in (created on its first turn, recording its principal),
   * or the refusal when it belongs to someone else. With `foreignSession: "new-session"`
   * (channels, after an owner was added or removed) a fresh session under the same key
   * takes over instead; the old one stays in the history.
   */
  const openSession = (request: ChatRequest): { session: SessionRow } | { refused: ChatResult } => {
    const decision = checkSession(request);
    const stored = store.sessions.byKey(request.sessionKey);
    if (decision.ok) {
      const row = stored ?? createSession(request, decision.principal);
      return { session: touch(row, request, decision.principal) };
    }
    // Only where the key itself says the session is this sender's (it was someone else's
    // under an earlier owner list): a stranger never takes over the owner's main session.
    const ownKey = sessions.reservedFor(request.sessionKey) === decision.principal;
    if (request.foreignSession === "new-session" && stored && ownKey && !scheduled(request)) {
      logger.info("the sender's standing changed: a fresh session under the same key", {
        sessionKey: request.sessionKey,
        was: decision.holder,
        now: decision.principal,
      });
      return {
        session: touch(createSession(request, decision.principal), request, decision.principal),
      };
    }
    logger.warn("turn refused: the session belongs to someone else", {
      sessionKey: request.sessionKey,
      holder: decision.holder,
      sender: decision.principal,
    });
    return { refused: refusal(request, decision.message) };
  };

  return { check: checkSession, open: openSession, refusal };
}
