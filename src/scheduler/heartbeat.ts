/**
 * The heartbeat: every `heartbeat.every`, within `heartbeat.activeHours`, a light turn
 * that reads HEARTBEAT.md. Guarantees:
 * - no model call when HEARTBEAT.md is effectively empty and no follow-up is due;
 * - light context: run kind "heartbeat" (minimal prompt mode and the minimal bootstrap
 *   set), a fresh session under `agent:<id>:heartbeat` each beat (no history), and the
 *   heartbeat stage of the tool policy;
 * - never two beats at once; a beat waits until no other turn runs, and yields (aborts
 *   and retries later) when an owner turn starts while it runs, so it never delays one;
 * - HEARTBEAT_OK (+ at most 300 characters) is not delivered; anything else goes to
 *   `heartbeat.target`, else to the owner's most recently active channel;
 * - only the newest beats' sessions are kept (48 by default: a day at the default 30 min),
 *   so a year of beats does not leave 17,000 sessions in the database.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { AgentConfig, FollowupsConfig, HeartbeatConfig } from "../config/index.ts";
import { OWNER, type SessionResolver } from "../sessions/index.ts";
import type { Store } from "../store/index.ts";
import type { Logger } from "../system/index.ts";
import { isEffectivelyEmpty } from "../workspace/index.ts";
import { withinActiveHours } from "./active-hours.ts";
import { parseDuration } from "./duration.ts";
import type { Followup, FollowupStore } from "./followup-store.ts";
import { type Origin, parseTarget } from "./origin.ts";
import { ownerRecentTarget } from "./owner-target.ts";
import type { ScheduledTurn, TurnOutcome } from "./scheduled-turn.ts";

export type BeatResult =
  | {
      status: "skipped";
      reason: "empty" | "inactive-hours" | "already-running" | "busy" | "closed";
    }
  | { status: "ran"; outcome: TurnOutcome; followups: number };

export interface HeartbeatDeps {
  /** The sections the heartbeat reads; `agent` on each beat (owners can change live). */
  config: {
    heartbeat: HeartbeatConfig;
    agent: Pick<AgentConfig, "owners" | "timezone">;
    followups: Pick<FollowupsConfig, "enabled">;
  };
  store: Store;
  workspace: string;
  logger: Logger;
  runTurn: (turn: ScheduledTurn) => Promise<TurnOutcome>;
  /** Turns in progress in the agent (the heartbeat's own included while it runs). */
  activeRuns: () => number;
  /** Beat sessions kept (newest first); older ones are deleted with their transcripts. */
  keepSessions?: number;
  followups?: FollowupStore;
  /** The heartbeat's session key. */
  sessions: SessionResolver;
  now?: () => number;
  /** Poll interval while waiting for other turns to finish. */
  pollMs?: number;
}

export interface Heartbeat {
  start(): void;
  /** One beat now (tests, `clawbox heartbeat`-style triggers). */
  beat(): Promise<BeatResult>;
  close(): Promise<void>;
}

export function heartbeatPrompt(heartbeatMd: string, due: Followup[]): string {
  const lines = [
    "[Heartbeat] A periodic check. Do what HEARTBEAT.md below asks.",
    "If nothing needs the owner's attention, reply exactly HEARTBEAT_OK.",
  ];
  if (!isEffectivelyEmpty(heartbeatMd)) lines.push("", "HEARTBEAT.md:", heartbeatMd.trim());
  if (due.length > 0) {
    lines.push("", "Follow-ups you promised that are now due (tell the owner about each):");
    for (const f of due) lines.push(`- ${f.text} (due ${new Date(f.dueAt).toISOString()})`);
  }
  return lines.join("\n");
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const KEEP_BEAT_SESSIONS = 48;

export function createHeartbeat(deps: HeartbeatDeps): Heartbeat {
  const { config, logger } = deps;
  const cfg = config.heartbeat;
  const now = deps.now ?? Date.now;
  const pollMs = deps.pollMs ?? 1000;
  const everyMs = parseDuration(cfg.every, "heartbeat.every");
  const owner = config.agent.owners[0];
  let running: Promise<BeatResult> | undefined;
  let timer: ReturnType<typeof setInterval> | undefined;
  let closed = false;

  const readHeartbeatMd = (): string => {
    try {
      return readFileSync(join(deps.workspace, "HEARTBEAT.md"), "utf8");
    } catch {
      return "";
    }
  };

  const target = (): Origin | undefined =>
    (cfg.target ? parseTarget(cfg.target) : undefined) ??
    ownerRecentTarget(deps.store, config.agent.owners);

  /** Waits while other turns run; false when the box closed meanwhile. */
  const waitForIdle = async (others: number): Promise<boolean> => {
    const deadline = now() + everyMs;
    while (deps.activeRuns() > others) {
      if (closed || now() > deadline) return false;
      await sleep(pollMs);
    }
    return !closed;
  };

  async function runBeat(): Promise<BeatResult> {
    if (!withinActiveHours(cfg.activeHours, now(), config.agent.timezone))
      return { status: "skipped", reason: "inactive-hours" };
    const text = readHeartbeatMd();
    const due = config.followups.enabled ? (deps.followups?.due(now()) ?? []) : [];
    if (isEffectivelyEmpty(text) && due.length === 0) return { status: "skipped", reason: "empty" };
    const sessionKey = deps.sessions.system("heartbeat");
    for (let attempt = 0; attempt < 3; attempt++) {
      if (!(await waitForIdle(0))) return { status: "skipped", reason: closed ? "closed" : "busy" };
      // A fresh session per beat: the heartbeat never carries history.
      deps.store.sessions.create({
        sessionKey,
        chatType: "system",
        principal: OWNER,
        cwd: deps.workspace,
      });
      deps.store.sessions.pruneOlder(sessionKey, deps.keepSessions ?? KEEP_BEAT_SESSIONS);
      const controller = new AbortController();
      let yielded = false;
      const watch = setInterval(() => {
        if (deps.activeRuns() > 1) {
          yielded = true;
          controller.abort();
        }
      }, pollMs);
      const outcome = await deps
        .runTurn({
          sessionKey,
          text: heartbeatPrompt(text, due),
          origin: {
            channel: "heartbeat",
            chatType: "system",
            ...(owner ? { senderId: owner } : {}),
          },
          target: target() ?? { channel: "heartbeat", chatType: "system" },
          runKind: "heartbeat",
          signal: controller.signal,
        })
        .finally(() => clearInterval(watch));
      if (yielded && !outcome.ok) {
        logger.info("heartbeat yielded to another turn; retrying when idle");
        continue;
      }
      if (outcome.ok && due.length > 0)
        deps.followups?.markDelivered(
          due.map((f) => f.id),
          now(),
        );
      return { status: "ran", outcome, followups: due.length };
    }
    return { status: "skipped", reason: "busy" };
  }

  const beat = (): Promise<BeatResult> => {
    if (closed) return Promise.resolve({ status: "skipped", reason: "closed" });
    if (running) return Promise.resolve({ status: "skipped", reason: "already-running" });
    running = runBeat()
      .then((result) => {
        if (result.status === "ran")
          logger.info("heartbeat ran", { ok: result.outcome.ok, detail: result.outcome.detail });
        return result;
      })
      .finally(() => {
        running = undefined;
      });
    return running;
  };

  return {
    start() {
      if (!cfg.enabled || timer) return;
      timer = setInterval(() => void beat(), everyMs);
      timer.unref?.();
    },
    beat,
    async close() {
      closed = true;
      if (timer) clearInterval(timer);
      await running;
    },
  };
}
