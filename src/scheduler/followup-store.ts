/**
 * Follow-ups: promises the assistant made ("I'll check the camera again tonight"),
 * stored with their due time and delivered by the next heartbeat after it.
 */
import type { Database } from "bun:sqlite";
import { type Origin, originSchema } from "./origin.ts";

export interface Followup {
  id: number;
  sessionKey: string;
  text: string;
  dueAt: number;
  state: "open" | "delivered" | "cancelled";
  origin: Origin;
  createdAt: number;
}

interface Row {
  id: number;
  session_key: string;
  text: string;
  due_at: number;
  state: Followup["state"];
  origin: string;
  created_at: number;
}

const toFollowup = (row: Row): Followup => ({
  id: row.id,
  sessionKey: row.session_key,
  text: row.text,
  dueAt: row.due_at,
  state: row.state,
  origin: originSchema.parse(JSON.parse(row.origin)),
  createdAt: row.created_at,
});

export class FollowupStore {
  constructor(
    private readonly db: Database,
    private readonly maxOpen = 50,
  ) {}

  add(
    input: { sessionKey: string; text: string; dueAt: number; origin: Origin },
    now = Date.now(),
  ): Followup {
    const row = this.db
      .query(
        "INSERT INTO followups (session_key, text, due_at, origin, created_at) VALUES (?, ?, ?, ?, ?) RETURNING *",
      )
      .get(input.sessionKey, input.text, input.dueAt, JSON.stringify(input.origin), now) as Row;
    // Bounded: the oldest open ones beyond maxOpen are cancelled.
    this.db
      .query(
        `UPDATE followups SET state = 'cancelled' WHERE state = 'open' AND id NOT IN
           (SELECT id FROM followups WHERE state = 'open' ORDER BY created_at DESC, id DESC LIMIT ?)`,
      )
      .run(this.maxOpen);
    return toFollowup(row);
  }

  /** Open follow-ups, soonest first. */
  list(): Followup[] {
    return (
      this.db.query("SELECT * FROM followups WHERE state = 'open' ORDER BY due_at").all() as Row[]
    ).map(toFollowup);
  }

  due(now: number): Followup[] {
    return (
      this.db
        .query("SELECT * FROM followups WHERE state = 'open' AND due_at <= ? ORDER BY due_at")
        .all(now) as Row[]
    ).map(toFollowup);
  }

  markDelivered(ids: number[], now: number): void {
    const update = this.db.query(
      "UPDATE followups SET state = 'delivered', delivered_at = ? WHERE id = ? AND state = 'open'",
    );
    this.db.transaction(() => {
      for (const id of ids) update.run(now, id);
    })();
  }

  /** True when an open follow-up was cancelled. */
  cancel(id: number): boolean {
    return (
      this.db
        .query("UPDATE followups SET state = 'cancelled' WHERE id = ? AND state = 'open'")
        .run(id).changes === 1
    );
  }
}
