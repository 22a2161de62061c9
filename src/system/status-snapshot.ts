/**
 * A long-running part's state for other commands: `clawbox run` owns the MQTT bridge and
 * the Wyoming server, so it writes each one's snapshot to a small JSON file in the home
 * (atomically), and `channels status`, `doctor` and the console read it back, checked by
 * its schema and by whether its writer is still alive (a `kill -9`ed service leaves a
 * snapshot saying "connected").
 */
import { readFileSync } from "node:fs";
import { writeFileAtomic } from "./atomic-write.ts";
import { processAlive } from "./process-alive.ts";

/** What a snapshot holds at least: its writer's pid and whether it said it stopped. */
export interface StatusSnapshot {
  pid: number;
  state: string;
}

export function writeStatusSnapshot(path: string, status: StatusSnapshot): void {
  writeFileAtomic(path, `${JSON.stringify(status, null, 2)}\n`, { mode: 0o644 });
}

/** The last snapshot and whether its writer still runs; undefined when none is readable. */
export function readStatusSnapshot<T extends StatusSnapshot>(
  path: string,
  schema: { safeParse(raw: unknown): { success: true; data: T } | { success: false } },
): { status: T; running: boolean } | undefined {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, "utf8"));
  } catch {
    return undefined;
  }
  const parsed = schema.safeParse(raw);
  if (!parsed.success) return undefined;
  return {
    status: parsed.data,
    running: parsed.data.state !== "stopped" && processAlive(parsed.data.pid),
  };
}
