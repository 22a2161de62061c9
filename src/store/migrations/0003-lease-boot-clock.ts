/**
 * Lease expiry on the boot clock as well as the wall clock: a Pi without an RTC jumps its
 * wall clock forward when NTP syncs, which made every live lease look expired at once.
 */
import type { Migration } from "./migration.ts";

export const leaseBootClock: Migration = {
  version: 3,
  name: "session lease boot clock",
  sql: `
    ALTER TABLE session_leases ADD COLUMN boot_id TEXT;
    ALTER TABLE session_leases ADD COLUMN expires_uptime_ms INTEGER;
  `,
};
