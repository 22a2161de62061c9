/**
 * Output cleaning before anything leaves the agent: thinking blocks and internal tags
 * (<think>, <thinking>, <final>, <reply> wrappers…) are removed, and the silent tokens
 * NO_REPLY / HEARTBEAT_OK are recognized. HEARTBEAT_OK is silent only when what is left
 * around it is at most 300 characters (a heartbeat ack with a short note).
 */
const HIDDEN_BLOCK = /<(think|thinking|reasoning|analysis)\b[^>]*>[\s\S]*?(<\/\1\s*>|$)/gi;
const WRAPPER_TAG = /<\/?(final|answer|reply|response|output)\b[^>]*>/gi;
const STRAY_CLOSE = /<\/(think|thinking|reasoning|analysis)\s*>/gi;

export const SILENT_TOKENS = ["NO_REPLY", "HEARTBEAT_OK"] as const;
const HEARTBEAT_MAX_EXTRA = 300;

export interface CleanedOutput {
  text: string;
  silent: boolean;
}

/** Removes thinking blocks and internal tags; trims. */
export function stripInternalTags(text: string): string {
  let out = text.replace(HIDDEN_BLOCK, "");
  // A closing tag without its opener means everything before it was thinking.
  const close = /<\/(think|thinking|reasoning|analysis)\s*>/i.exec(out);
  if (close) out = out.slice(close.index + close[0].length);
  return out.replace(STRAY_CLOSE, "").replace(WRAPPER_TAG, "").trim();
}

export function cleanOutput(text: string): CleanedOutput {
  const cleaned = stripInternalTags(text);
  if (cleaned === "NO_REPLY" || /^NO_REPLY\W*$/.test(cleaned)) return { text: "", silent: true };
  if (cleaned.includes("HEARTBEAT_OK")) {
    const rest = cleaned.replace(/HEARTBEAT_OK/g, "").trim();
    if (rest.length <= HEARTBEAT_MAX_EXTRA) return { text: "", silent: true };
    return { text: rest, silent: false };
  }
  return { text: cleaned, silent: false };
}
