/**
 * A minimal context engine for agent-loop tests: the active branch from the last
 * compaction as messages, a fixed system prompt, and a compaction that keeps only the
 * last user message (recorded as a real compaction entry in the store). It records
 * every call so tests can assert what the loop asked for.
 */
import type {
  AssembledContext,
  AssembleInput,
  CompactInput,
  CompactResult,
  ContextEngine,
} from "../../src/context/context-engine.ts";
import type { Message, TranscriptEntry } from "../../src/messages/index.ts";
import type { Store } from "../../src/store/index.ts";

export interface TestContextEngine extends ContextEngine {
  assembled: AssembleInput[];
  compactions: CompactInput[];
  ingested: TranscriptEntry[];
}

export function createTestContextEngine(
  store: Store,
  systemPrompt = "You are a test assistant.",
): TestContextEngine {
  const engine: TestContextEngine = {
    id: "test",
    ownsCompaction: false,
    assembled: [],
    compactions: [],
    ingested: [],
    async ingest(_sessionId, entries) {
      engine.ingested.push(...entries);
    },
    async assemble(input, pending): Promise<AssembledContext> {
      engine.assembled.push(input);
      const messages: Message[] = [];
      for (const entry of store.transcript.branch(input.session.sessionId, {
        fromLastCompaction: true,
      })) {
        if (entry.type === "compaction")
          messages.push({ role: "user", content: `[summary] ${entry.summary}`, timestamp: 0 });
        else if (entry.type === "message") messages.push(entry.message);
      }
      if (pending) messages.push(pending);
      return {
        pendingMessage: pending,
        systemPrompt,
        cacheBoundary: systemPrompt.length,
        messages,
        tools: input.tools,
      };
    },
    async compact(input): Promise<CompactResult> {
      engine.compactions.push(input);
      const branch = store.transcript.branch(input.session.sessionId);
      const lastUser = [...branch]
        .reverse()
        .find((e) => e.type === "message" && e.message.role === "user");
      if (!lastUser) return { compacted: false, reason: "nothing to compact" };
      const entry = store.transcript.append(input.session.sessionId, {
        type: "compaction",
        summary: `compacted ${branch.length} entries`,
        firstKeptEntryId: lastUser.id,
        tokensBefore: branch.length * 100,
      });
      store.sessions.update(input.session.sessionId, {
        compactionCount: input.session.compactionCount + 1,
      });
      return {
        compacted: true,
        tokensBefore: branch.length * 100,
        tokensAfter: 100,
        entryId: entry.id,
      };
    },
    async maintain(_sessionId: string, _store: Store) {},
  };
  return engine;
}
