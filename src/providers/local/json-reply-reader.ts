/**
 * Reads the JSON reply of a local model while it is generated: tells when the object
 * is complete (the grammar would allow trailing whitespace forever), streams the text
 * of a `{"type":"text","text":...}` answer as it grows, and parses the final object.
 */
import { z } from "../../schema/index.ts";

const TEXT_START = /^\s*\{\s*"type"\s*:\s*"text"\s*,\s*"text"\s*:\s*"/;

const replyShape = z.union([
  z.object({
    type: z.literal("toolCall"),
    name: z.string(),
    arguments: z.record(z.string(), z.unknown()),
  }),
  z.object({ type: z.literal("text"), text: z.string() }),
]);

export type JsonReply = z.infer<typeof replyShape>;

export class JsonReplyReader {
  private raw = "";
  private depth = 0;
  private inString = false;
  private escaped = false;
  private started = false;
  private complete = false;
  private streamedText = "";

  /** Feeds generated text; returns the newly available answer text (may be ""). */
  push(chunk: string): string {
    for (const char of chunk) {
      if (this.complete) break;
      this.raw += char;
      this.track(char);
    }
    return this.textDelta();
  }

  isComplete(): boolean {
    return this.complete;
  }

  /** The reply parsed and shape-checked, or undefined when incomplete or malformed. */
  parse(): JsonReply | undefined {
    try {
      const parsed = replyShape.safeParse(JSON.parse(this.raw));
      return parsed.success ? parsed.data : undefined;
    } catch {
      return undefined;
    }
  }

  /** Answer text streamed so far (for a reply cut off before it completed). */
  text(): string {
    return this.streamedText;
  }

  private track(char: string): void {
    if (this.inString) {
      if (this.escaped) this.escaped = false;
      else if (char === "\\") this.escaped = true;
      else if (char === '"') this.inString = false;
      return;
    }
    if (char === '"') this.inString = true;
    else if (char === "{" || char === "[") {
      this.depth += 1;
      this.started = true;
    } else if (char === "}" || char === "]") {
      this.depth -= 1;
      if (this.started && this.depth === 0) this.complete = true;
    }
  }

  private textDelta(): string {
    const start = TEXT_START.exec(this.raw);
    if (!start) return "";
    const body = this.raw.slice(start[0].length);
    const decoded = decodeJsonStringPrefix(body);
    if (decoded.length <= this.streamedText.length) return "";
    const delta = decoded.slice(this.streamedText.length);
    this.streamedText = decoded;
    return delta;
  }
}

/** Decodes the longest complete prefix of a JSON string body (up to its closing quote). */
function decodeJsonStringPrefix(body: string): string {
  let end = 0;
  let safeEnd = 0;
  while (end < body.length) {
    const char = body[end];
    if (char === '"') break;
    if (char === "\\") {
      const next = body[end + 1];
      if (next === undefined) break;
      const width = next === "u" ? 6 : 2;
      if (end + width > body.length) break;
      end += width;
    } else {
      end += 1;
    }
    safeEnd = end;
  }
  try {
    return JSON.parse(`"${body.slice(0, safeEnd)}"`) as string;
  } catch {
    return "";
  }
}
