/**
 * Opaque identifiers that a summary must keep verbatim (SPEC §6 MUST PRESERVE): UUIDs,
 * URLs, IPs with ports, hashes, entry/message ids, host names and file names. They are
 * listed in the summarizer's instructions and re-appended if the summary lost any.
 */
const PATTERNS: RegExp[] = [
  /\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi,
  /\b(?:https?|wss?|mqtts?|ssh|ftp):\/\/[^\s<>"'`)\]]+/gi,
  /\b(?:\d{1,3}\.){3}\d{1,3}(?::\d{1,5})?\b/g,
  /\b[0-9a-f]{7,64}\b/gi,
  /\b[A-Za-z][A-Za-z0-9]*[_-][A-Za-z0-9_-]*\d[A-Za-z0-9_-]*\b/g,
  /\b(?:[a-z0-9-]+\.)+(?:local|lan|home|com|net|org|io|cn|dev|arpa)\b(?::\d{1,5})?/gi,
  /(?:^|[\s"'(])((?:[~.]?\/)?(?:[\w.-]+\/)*[\w-]+\.(?:md|json|jsonl|ts|js|py|sh|yaml|yml|toml|txt|log|csv|db|gguf|onnx|jpg|jpeg|png|conf|service))\b/g,
];

const HEX_ONLY = /^[0-9a-f]+$/i;

export function extractIdentifiers(text: string, limit = 200): string[] {
  const found = new Set<string>();
  for (const pattern of PATTERNS) {
    for (const m of text.matchAll(pattern)) {
      let value = (m[1] ?? m[0]).replace(/[.,;:]+$/, "");
      if (HEX_ONLY.test(value) && !/[0-9]/.test(value)) continue;
      if (HEX_ONLY.test(value) && !/[a-f]/i.test(value) && value.length < 9) continue;
      value = value.trim();
      if (value.length < 4) continue;
      found.add(value);
      if (found.size >= limit) return [...found];
    }
  }
  // Drop fragments contained in a longer identifier (e.g. the host inside a URL).
  const all = [...found];
  return all.filter(
    (id) => !all.some((other) => other !== id && other.length > id.length && other.includes(id)),
  );
}

/** Identifiers from `required` that `summary` does not contain verbatim. */
export function missingIdentifiers(summary: string, required: readonly string[]): string[] {
  return required.filter((id) => !summary.includes(id));
}
