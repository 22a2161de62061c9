/**
 * What a reminder's run is shown as (the console's "Last runs", `clawbox cron list
 * --runs`): "sent" only once the platform accepted every part (the channel outbox rows
 * it was stored as are all `sent`, or the MQTT broker acknowledged it), "delivered" when
 * it is in the conversation the owner reads (console, CLI), "queued" while it waits to
 * go out, "not sent" when it could not; runs that did not deliver keep their status.
 */
import type { CronRun } from "./cron-store.ts";

export type ShownRunStatus =
  | "sent"
  | "delivered"
  | "queued"
  | "not sent"
  | "ok"
  | "failed"
  | "missed"
  | "running"
  | "interrupted";

/** The outbox rows' states, as the channels area reports them. */
export type OutboxStates = (
  ids: readonly number[],
) => readonly { state: string; reason?: string }[];

export function shownRunStatus(
  run: CronRun,
  outboxStates: OutboxStates,
): { status: ShownRunStatus; detail: string | undefined } {
  const { detail } = run;
  if (run.status !== "ok" || run.delivery === undefined) return { status: run.status, detail };
  if (run.delivery === "sent") return { status: "sent", detail };
  if (run.delivery === "stored") return { status: "delivered", detail };
  if (run.delivery === "kept") return { status: "not sent", detail };
  if (run.outboxIds.length === 0) return { status: "queued", detail };
  const rows = outboxStates(run.outboxIds);
  const lost = rows.find((r) => r.state === "failed" || r.state === "expired");
  if (lost || rows.length < run.outboxIds.length)
    return {
      status: "not sent",
      detail: `${detail ?? ""}; not sent: ${lost?.reason ?? "the outbox row is gone"}`,
    };
  if (rows.every((r) => r.state === "sent"))
    return { status: "sent", detail: detail?.replace(/^queued to /, "sent to ") };
  const retry = rows.find((r) => r.state === "pending" && r.reason)?.reason;
  return { status: "queued", detail: retry ? `${detail ?? ""}; retrying: ${retry}` : detail };
}
