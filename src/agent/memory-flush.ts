/**
 * The pre-compaction memory flush (SPEC §6): before older turns are summarized away,
 * one silent turn in the same session lets the model write durable notes to
 * `memory/YYYY-MM-DD.md`. Its reply is never delivered; NO_REPLY is the expected
 * answer when nothing is worth keeping. The context engine calls it at most once per
 * compaction cycle.
 */
export function memoryFlushPrompt(now: Date): string {
  const day = now.toISOString().slice(0, 10);
  return [
    "[memory flush before compaction] Older parts of this conversation are about to be summarized.",
    `If anything from it must be remembered long-term (decisions, preferences, dates, people, todos, promised follow-ups), append it now to memory/${day}.md with your file tools, as short dated bullet points.`,
    "Do not repeat what is already in MEMORY.md or that file. Then reply exactly NO_REPLY.",
  ].join("\n");
}
