/**
 * Import and export of transcripts as JSONL in the pi/OpenClaw v3 session format:
 * a `session` header line, then one entry per line in insertion order. Entries are
 * written back exactly as stored, so import → export is lossless.
 */
import * as z from "zod";
import { ClawboxError } from "../errors/index.ts";
import type { SessionHeader, TranscriptEntry } from "../messages/index.ts";
import type { SessionRow } from "./session-store.ts";
import type { Store } from "./store.ts";

const headerSchema = z.looseObject({
  type: z.literal("session"),
  version: z.literal(3),
  id: z.string().min(1),
  timestamp: z.string().min(1),
  cwd: z.string(),
});

const entrySchema = z.looseObject({
  type: z.string().min(1),
  id: z.string().min(1),
  parentId: z.string().min(1).nullable(),
  timestamp: z.string().min(1),
});

const messageEntrySchema = z.looseObject({
  type: z.literal("message"),
  message: z.looseObject({ role: z.string().min(1) }),
});

export function exportSessionJsonl(store: Store, sessionId: string): string {
  const session = store.sessions.require(sessionId);
  const lines = [JSON.stringify(session.header)];
  for (const entry of store.transcript.all(sessionId)) lines.push(JSON.stringify(entry));
  return `${lines.join("\n")}\n`;
}

function fail(source: string, line: number, message: string, hint?: string): never {
  throw new ClawboxError(
    "TRANSCRIPT_INVALID",
    `${source}:${line}: ${message}`,
    hint ? { hint } : {},
  );
}

function describe(error: z.ZodError): string {
  return error.issues.map((i) => `${i.path.join(".") || "(line)"}: ${i.message}`).join("; ");
}

export interface ImportOptions {
  /** Session key for the imported session; default `agent:<agentId>:import:direct:<id>`. */
  sessionKey?: string;
  agentId?: string;
  /** Name used in error messages. */
  source?: string;
}

/**
 * Parses and stores a JSONL transcript as a new session. Nothing is written unless the
 * whole file is valid. Older v1/v2 files are rejected with a hint rather than guessed at.
 */
export function importSessionJsonl(
  store: Store,
  text: string,
  options: ImportOptions = {},
): SessionRow {
  const source = options.source ?? "transcript";
  const lines = text.split("\n");
  let header: SessionHeader | undefined;
  const entries: TranscriptEntry[] = [];
  const ids = new Set<string>();
  lines.forEach((line, index) => {
    const lineNo = index + 1;
    if (line.trim() === "") return;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      fail(source, lineNo, "not valid JSON");
    }
    if (!header) {
      const parsed = headerSchema.safeParse(value);
      if (!parsed.success) {
        fail(
          source,
          lineNo,
          `not a v3 session header: ${describe(parsed.error)}`,
          'the first line must be {"type":"session","version":3,...}; convert older files with pi first',
        );
      }
      header = parsed.data as SessionHeader;
      return;
    }
    const parsed = entrySchema.safeParse(value);
    if (!parsed.success) fail(source, lineNo, `invalid entry: ${describe(parsed.error)}`);
    if (parsed.data.type === "message") {
      const msg = messageEntrySchema.safeParse(value);
      if (!msg.success) fail(source, lineNo, `invalid message entry: ${describe(msg.error)}`);
    }
    if (ids.has(parsed.data.id)) fail(source, lineNo, `duplicate entry id ${parsed.data.id}`);
    if (parsed.data.parentId !== null && !ids.has(parsed.data.parentId)) {
      fail(source, lineNo, `parentId ${parsed.data.parentId} does not name an earlier entry`);
    }
    ids.add(parsed.data.id);
    entries.push(value as TranscriptEntry);
  });
  if (!header) fail(source, 1, "empty file: no session header");
  const sessionHeader = header;
  if (store.sessions.get(sessionHeader.id)) {
    fail(
      source,
      1,
      `session ${sessionHeader.id} already exists`,
      "delete it first or import a copy with a new id",
    );
  }
  const key =
    options.sessionKey ?? `agent:${options.agentId ?? "main"}:import:direct:${sessionHeader.id}`;
  let row!: SessionRow;
  store.db.transaction(() => {
    row = store.sessions.create({
      sessionKey: key,
      header: sessionHeader,
      createdAt: Date.parse(sessionHeader.timestamp) || Date.now(),
    });
    for (const entry of entries) store.transcript.insertRaw(sessionHeader.id, entry);
    const last = entries[entries.length - 1];
    if (last) store.transcript.setLeaf(sessionHeader.id, last.id);
  })();
  return store.sessions.require(row.sessionId);
}
