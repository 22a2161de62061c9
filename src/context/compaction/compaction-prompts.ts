/**
 * Instructions for the summarizer. The MUST PRESERVE list follows SPEC §6; identifiers
 * found in the summarized turns are listed explicitly so the model copies them exactly.
 */
export const SUMMARIZER_SYSTEM_PROMPT =
  "You compress a conversation between a user and their home assistant into a faithful working summary. Write plain text in the conversation's language. Do not address the user, do not add facts, do not call tools.";

export const MUST_PRESERVE = [
  "active tasks and their status",
  "progress made so far",
  "the last user request",
  "decisions and their rationale",
  "TODOs and open questions",
  "constraints and preferences the user stated",
  "follow-ups that were promised",
];

function preserveBlock(identifiers: readonly string[], focus?: string): string {
  const lines = ["MUST PRESERVE:", ...MUST_PRESERVE.map((item) => `- ${item}`)];
  lines.push(
    "- every opaque identifier exactly as written (UUIDs, hashes, IDs, hosts, IPs, ports, URLs, file names)",
  );
  if (identifiers.length > 0) {
    lines.push(
      "",
      "Identifiers that must appear verbatim in your summary:",
      ...identifiers.map((id) => `- ${id}`),
    );
  }
  if (focus) lines.push("", `Also focus on: ${focus}`);
  return lines.join("\n");
}

export function chunkPrompt(
  transcript: string,
  part: number,
  parts: number,
  identifiers: readonly string[],
  focus?: string,
): string {
  const scope =
    parts > 1
      ? `This is part ${part} of ${parts} of the older conversation.`
      : "This is the older conversation.";
  return [
    `${scope} Summarize it so the assistant can continue the work without the original messages.`,
    "",
    preserveBlock(identifiers, focus),
    "",
    "<conversation>",
    transcript,
    "</conversation>",
  ].join("\n");
}

export function mergePrompt(
  partials: readonly string[],
  identifiers: readonly string[],
  focus?: string,
): string {
  return [
    "Merge these partial summaries (oldest first) into one summary. Later parts override earlier ones where they conflict.",
    "",
    preserveBlock(identifiers, focus),
    "",
    ...partials.map((p, i) => `<partial_summary index="${i + 1}">\n${p}\n</partial_summary>`),
  ].join("\n");
}
