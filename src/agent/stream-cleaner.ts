/**
 * The streaming side of output cleaning: text deltas pass through with thinking blocks
 * and internal tags removed as they arrive. A possible tag start ("<thi…") and a reply
 * that may still become NO_REPLY / HEARTBEAT_OK are held back until they are decided,
 * so a silent reply never reaches a stream consumer.
 */
import { cleanOutput, SILENT_TOKENS } from "./clean-output.ts";

const HIDDEN = new Set(["think", "thinking", "reasoning", "analysis"]);
const WRAPPERS = new Set(["final", "answer", "reply", "response", "output"]);
const MAX_TAG = 40;

export interface StreamCleaner {
  /** Feeds a raw delta; returns the text that may be shown now (maybe ""). */
  push(delta: string): string;
  /** End of stream: returns what was held back, unless it is silent or hidden. */
  flush(): string;
}

export function createStreamCleaner(): StreamCleaner {
  let pending = "";
  let hidden = false;
  let shown = "";
  let decided = false;

  const release = (text: string): string => {
    if (decided) return text;
    const candidate = (shown + text).trimStart();
    const couldBeSilent = SILENT_TOKENS.some(
      (token) => token.startsWith(candidate) || candidate.startsWith(token),
    );
    if (couldBeSilent && candidate.length > 0) {
      shown += text;
      return "";
    }
    if (candidate.length === 0) {
      shown += text;
      return "";
    }
    decided = true;
    const out = shown + text;
    shown = out;
    return out.trimStart();
  };

  const process = (final: boolean): string => {
    let out = "";
    while (pending.length > 0) {
      const lt = pending.indexOf("<");
      if (hidden) {
        const close = /<\/(think|thinking|reasoning|analysis)\s*>/i.exec(pending);
        if (!close) {
          // keep a possible partial closing tag
          pending = final ? "" : pending.slice(Math.max(0, pending.length - MAX_TAG));
          return out;
        }
        pending = pending.slice(close.index + close[0].length);
        hidden = false;
        continue;
      }
      if (lt < 0) {
        out += pending;
        pending = "";
        break;
      }
      out += pending.slice(0, lt);
      pending = pending.slice(lt);
      const gt = pending.indexOf(">");
      if (gt < 0) {
        if (!final && pending.length < MAX_TAG && /^<\/?[a-z]*$/i.test(pending)) return out;
        out += pending.slice(0, 1);
        pending = pending.slice(1);
        continue;
      }
      const tag = /^<(\/?)([a-z]+)\b[^>]*>$/i.exec(pending.slice(0, gt + 1));
      const name = tag?.[2]?.toLowerCase() ?? "";
      if (tag && HIDDEN.has(name)) {
        hidden = tag[1] !== "/";
        pending = pending.slice(gt + 1);
      } else if (tag && WRAPPERS.has(name)) {
        pending = pending.slice(gt + 1);
      } else {
        out += pending.slice(0, 1);
        pending = pending.slice(1);
      }
    }
    return out;
  };

  return {
    push(delta) {
      pending += delta;
      const text = process(false);
      return text ? release(text) : "";
    },
    flush() {
      const text = process(true);
      if (decided) return text;
      decided = true;
      const cleaned = cleanOutput(shown + text);
      return cleaned.silent ? "" : cleaned.text;
    },
  };
}
