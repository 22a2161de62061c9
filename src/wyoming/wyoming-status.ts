/**
 * The Wyoming server's state as `clawbox channels status`, `doctor` and the console's
 * Channels page see it: where it listens, the announced name, the rooms seen, the last
 * request and its outcome, and connection counts. `clawbox run` owns the server, so it
 * writes this snapshot to a small JSON file in the home (through the atomic writer, at
 * most once a second); other commands read it and check that its writer is alive. No
 * transcript text is stored, only its outcome.
 */
import { join } from "node:path";
import { z } from "../schema/index.ts";
import { readStatusSnapshot, writeStatusSnapshot } from "../system/index.ts";

export const OUTCOMES = ["handled", "not-handled", "error"] as const;

/** Rooms remembered in the snapshot (most recent first). */
export const MAX_ROOMS_SHOWN = 32;

const statusSchema = z.object({
  pid: z.number().check(z.int()),
  listening: z.string(),
  state: z.enum(["listening", "stopped"]),
  announcedName: z.string(),
  /** "announced", "off", or why announcing failed. */
  zeroconf: z.string(),
  rooms: z.array(z.object({ room: z.string(), lastAt: z.number(), turns: z.number() })),
  lastRequest: z.optional(
    z.object({
      at: z.number(),
      room: z.string(),
      outcome: z.enum(OUTCOMES),
      detail: z.optional(z.string()),
    }),
  ),
  connections: z.object({
    accepted: z.number().check(z.int()),
    refused: z.number().check(z.int()),
    errors: z.number().check(z.int()),
  }),
  updatedAt: z.number(),
});

export type WyomingStatus = z.infer<typeof statusSchema>;
export type Outcome = (typeof OUTCOMES)[number];

export function wyomingStatusFile(home: string): string {
  return join(home, "wyoming-status.json");
}

export function writeWyomingStatus(path: string, status: WyomingStatus): void {
  writeStatusSnapshot(path, status);
}

/** The last snapshot and whether its writer still runs; undefined when none is readable. */
export function readWyomingStatus(
  path: string,
): { status: WyomingStatus; running: boolean } | undefined {
  return readStatusSnapshot(path, statusSchema);
}
