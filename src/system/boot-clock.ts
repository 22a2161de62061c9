/**
 * Time that the wall clock cannot move: this boot's identity and the milliseconds since
 * it (Linux `/proc/sys/kernel/random/boot_id` and `/proc/uptime`, shared by every process
 * of the boot). A Pi without an RTC starts on the image's date and jumps when NTP syncs;
 * comparisons between processes of one boot use this clock instead.
 */
import { readFileSync } from "node:fs";

export interface BootClock {
  /** Undefined where the system does not say (not Linux): fall back to the wall clock. */
  bootId: string | undefined;
  uptimeMs(): number;
}

function read(path: string): string | undefined {
  try {
    return readFileSync(path, "utf8").trim();
  } catch {
    return undefined;
  }
}

export const systemBootClock: BootClock = {
  bootId: read("/proc/sys/kernel/random/boot_id"),
  uptimeMs: () => Math.round(Number(read("/proc/uptime")?.split(" ")[0] ?? "0") * 1000),
};
