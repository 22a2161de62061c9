/**
 * `clawbox doctor` lines for the channels: one per enabled channel, from the shared state.
 * Failed or expired replies name the last one's reason (redacted) and what to do.
 */
import type { Database } from "bun:sqlite";
import type { ChannelsConfig } from "../config/index.ts";
import { redact } from "../system/index.ts";
import { readChannelStatus } from "./channel-status.ts";

export interface ChannelCheck {
  name: string;
  status: "ok" | "warn" | "fail";
  message: string;
  fix?: string;
}

interface LastUndelivered {
  state: "failed" | "expired";
  reason: string | null;
  created_at: number;
}

function lastUndelivered(db: Database, channel: string): LastUndelivered | null {
  return db
    .query(
      "SELECT state, reason, created_at FROM channel_outbox WHERE channel = ? AND state IN ('failed', 'expired') ORDER BY id DESC LIMIT 1",
    )
    .get(channel) as LastUndelivered | null;
}

/** What a person does about replies that were not delivered. */
function undeliveredFix(channel: string, last: LastUndelivered): string {
  if (last.state === "expired")
    return `the platform's reply window closed before those replies went out (the service was stopped, or ${channel} could not be reached, for too long); keep "clawbox run" running and online; the person can ask again. They are not resent`;
  return `check channels.${channel} (credentials, URLs) and the network, then see the service's log around that time; failed replies are not resent (so none arrives twice)`;
}

export function channelDoctorChecks(
  db: Database,
  channels: ChannelsConfig,
  /** Every secret of the config (`collectSecrets`), hidden in a failure's reason. */
  secrets: readonly string[],
): ChannelCheck[] {
  return readChannelStatus(db, channels)
    .filter((s) => s.enabled)
    .map((s) => {
      const failed = (s.outbox.failed ?? 0) + (s.outbox.expired ?? 0);
      const last = failed > 0 ? lastUndelivered(db, s.channel) : null;
      const lastWords = last
        ? `; the last ${last.state} at ${new Date(last.created_at).toISOString()}: ${String(redact(last.reason ?? "no reason recorded", secrets))}`
        : "";
      const message = `${s.state}${s.reason ? ` (${s.reason})` : ""}; outbox ${s.outbox.pending ?? 0} pending, ${s.outbox.sent ?? 0} sent, ${failed} failed or expired${lastWords}`;
      if (s.state === "error")
        return {
          name: `channel ${s.channel}`,
          status: "fail" as const,
          message,
          fix: `check channels.${s.channel} (credentials, URLs) and the log of clawbox run`,
        };
      if (s.state === "stopped" || failed > 0)
        return {
          name: `channel ${s.channel}`,
          status: "warn" as const,
          message,
          ...(s.state === "stopped"
            ? { fix: "start the service: clawbox run" }
            : last
              ? { fix: undeliveredFix(s.channel, last) }
              : {}),
        };
      return { name: `channel ${s.channel}`, status: "ok" as const, message };
    });
}
