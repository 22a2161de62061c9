/**
 * The skills a session's prompt listed, kept on the session (`skillsSnapshot`: names,
 * sources, paths and a short hash), written only when the list changed, so `clawbox
 * sessions` and reports can say which skills a conversation saw without a write per turn.
 */
import { createHash } from "node:crypto";
import type { SessionRow, Store } from "../store/index.ts";
import type { ContextReport } from "./context-report.ts";

export function updateSkillsSnapshot(
  store: Store,
  session: SessionRow,
  report: ContextReport,
): void {
  const skills = report.skills.listed.map((s) => ({
    name: s.name,
    source: s.source,
    path: s.path,
  }));
  const hash = createHash("sha256").update(JSON.stringify(skills)).digest("hex").slice(0, 16);
  const previous = session.skillsSnapshot as { hash?: string } | null;
  if (previous?.hash === hash) return;
  store.sessions.update(session.sessionId, {
    skillsSnapshot: { hash, takenAt: Date.now(), skills },
  });
}
