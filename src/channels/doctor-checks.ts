/** `clawbox doctor` lines for the channels: one per enabled channel, from the shared state. */
import type { Database } from "bun:sqlite";
import type { ClawboxConfig } from "../config/index.ts";
import { readChannelStatus } from "./channel-status.ts";

export interface ChannelCheck {
  name: string;
  status: "ok" | "warn" | "fail";
  message: string;
  fix?: string;
}

export function channelDoctorChecks(db: Database, config: ClawboxConfig): ChannelCheck[] {
  return readChannelStatus(db, config)
    .filter((s) => s.enabled)
    .map((s) => {
      const failed = (s.outbox.failed ?? 0) + (s.outbox.expired ?? 0);
      const message = `${s.state}${s.reason ? ` (${s.reason})` : ""}; outbox ${s.outbox.pending ?? 0} pending, ${s.outbox.sent ?? 0} sent, ${failed} failed or expired`;
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
          ...(s.state === "stopped" ? { fix: "start the service: clawbox run" } : {}),
        };
      return { name: `channel ${s.channel}`, status: "ok" as const, message };
    });
}
