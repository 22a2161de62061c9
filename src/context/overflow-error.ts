/**
 * Recognizes context-overflow errors from any provider (SPEC §6), so the loop can
 * compact and retry. Rate-limit and billing messages are excluded first: they often
 * mention "tokens" too.
 */
const NOT_OVERFLOW =
  /rate.?limit|too many requests|quota|billing|insufficient.?(funds|balance|credit)|\b429\b/i;

const OVERFLOW = [
  /request_too_large/i,
  /context.?length.?exceeded/i,
  /maximum context length/i,
  /prompt is too long/i,
  /exceeds? (the )?model'?s? context window/i,
  /context_window_exceeded/i,
  /input is too long/i,
  /exceeds the available context size/i,
  /context (window|size) (is )?(too small|exceeded)/i,
  /too many tokens/i,
  /上下文(过长|长度超|超出|超过)/,
  /超出.*(上下文|最大长度)/,
];

export function isContextOverflowMessage(message: string): boolean {
  if (NOT_OVERFLOW.test(message)) return false;
  return OVERFLOW.some((re) => re.test(message));
}
