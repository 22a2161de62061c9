/**
 * Import and export of transcripts as JSONL in the pi/OpenClaw v3 session format:
 * a `session` header line, then one entry per line in insertion order. Entries are
 * written back exactly as stored, so import → export is lossless.
 */

import { ClawboxError } from "../errors/index.ts";
import {
  type SessionHeader,
  type TranscriptEntry,
  transcriptEntrySchema,
} from "../messages/index.ts";
import { z } from "../schema/index.ts";
import type { SessionRow } from "./session-store.ts";
import type { Store } from "./store.ts";

const headerSchema = z.looseObject({
  type: z.literal("session"),
  version: z.literal(3),
  id: z.string().check(z.minLength(1)),
  timestamp: z.string().check(z.minLength(1)),
  cwd: z.string(),
});

/** What clawbox adds to the v3 header on export, so an import restores the session as it was. */
const clawboxHeaderSchema = z.looseObject({
  sessionKey: z.optional(z.string().check(z.minLength(1))),
  compactionCount: z.optional(z.number().check(z.int(), z.minimum(0))),
  chatType: z.optional(z.enum(["direct", "group", "system"])),
});

export function exportSessionJsonl(store: Store, sessionId: string): string {
  const session = store.sessions.require(sessionId);
  // A foreign file (imported without clawbox's header fields) is written back byte for byte.
  const foreign = session.origin?.importedFrom !== undefined && !("clawbox" in session.header);
  const header = foreign
    ? session.header
    : {
        ...session.header,
        clawbox: {
          sessionKey: session.sessionKey,
          compactionCount: session.compactionCount,
          chatType: session.chatType,
        },
      };
  const lines = [JSON.stringify(header)];
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

function describe(error: z.core.$ZodError): string {
  return error.issues.map((i) => `${i.path.join(".") || "(line)"}: ${i.message}`).join("; ");
}

export interface ImportOptions {
  /** Session key for the imported session; default the key recorded at export, else `keyForCopy`. */
  sessionKey?: string;
  /** Store under a fresh session id (re-importing a file whose session exists). */
  newId?: boolean;
  /** The key of a session that has none of its own (the sessions area's import key). */
  keyForCopy: (sessionId: string) => string;
  /** Name used in error messages. */
  source?: string;
}

/**
 * Parses and stores a JSONL transcript as a new session. Nothing is written unless the
 * whole file is valid. Older v1/v2 files are rejected with a hint rather than guessed at.
 */
export function importSessionJsonl(store: Store, text: string, options: ImportOptions): SessionRow {
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
    const parsed = transcriptEntrySchema.safeParse(value);
    if (!parsed.success) fail(source, lineNo, `invalid entry: ${describe(parsed.error)}`);
    if (ids.has(parsed.data.id)) fail(source, lineNo, `duplicate entry id ${parsed.data.id}`);
    if (parsed.data.parentId !== null && !ids.has(parsed.data.parentId)) {
      fail(source, lineNo, `parentId ${parsed.data.parentId} does not name an earlier entry`);
    }
    ids.add(parsed.data.id);
    entries.push(value as TranscriptEntry);
  });
  if (!header) fail(source, 1, "empty file: no session header");
  const extra = clawboxHeaderSchema.safeParse(header.clawbox ?? {});
  if (!extra.success) fail(source, 1, `invalid clawbox header fields: ${describe(extra.error)}`);
  const sessionHeader: SessionHeader = options.newId
    ? { ...header, id: crypto.randomUUID() }
    : header;
  if (store.sessions.get(sessionHeader.id)) {
    fail(
      source,
      1,
      `session ${sessionHeader.id} already exists`,
      "import a copy with --new-id, or delete it first with clawbox sessions delete",
    );
  }
  const importKey = options.keyForCopy(sessionHeader.id);
  let key = options.sessionKey ?? extra.data.sessionKey ?? importKey;
  const holder = store.sessions.byKey(key);
  if (holder) {
    // Never take a key from a live conversation unasked: a copy gets its own key.
    if (options.sessionKey || !options.newId) {
      fail(
        source,
        1,
        `session key ${key} already belongs to session ${holder.sessionId}`,
        "import under another key with --key KEY, or as a copy with --new-id",
      );
    }
    key = importKey;
  }
  const compactionCount =
    extra.data.compactionCount ?? entries.filter((e) => e.type === "compaction").length;
  let row!: SessionRow;
  store.db.transaction(() => {
    row = store.sessions.create({
      sessionKey: key,
      header: sessionHeader,
      createdAt: Date.parse(sessionHeader.timestamp) || Date.now(),
      origin: { importedFrom: source },
      ...(extra.data.chatType ? { chatType: extra.data.chatType } : {}),
    });
    store.sessions.update(row.sessionId, { compactionCount });
    for (const entry of entries) store.transcript.insertRaw(sessionHeader.id, entry);
    const last = entries[entries.length - 1];
    if (last) store.transcript.setLeaf(sessionHeader.id, last.id);
  })();
  return store.sessions.require(row.sessionId);
}
