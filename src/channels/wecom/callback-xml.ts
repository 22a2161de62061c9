/**
 * WeCom callback XML, read without a backtracking regex (issue 23: a lazy `[\s\S]*?`
 * with a backreference took seconds on 256 KB of hostile input, before any signature
 * check). Two steps, both linear in the input:
 * - `encryptedField`: the only thing read from an unverified body is the `<Encrypt>`
 *   element's text (WeCom signs that text, not the body), found with two `indexOf`
 *   calls on the raw bytes and checked to be base64 with a character loop.
 * - `readXmlFields`: the decrypted message (after the signature matched) is parsed by
 *   saxes, a streaming state-machine parser (one pass, no regex over the input, no
 *   entity expansion beyond XML's five), loaded on first use so it costs nothing at READY.
 *   Only the flat shape WeCom sends is kept: text or CDATA children of the root; a child
 *   with nested elements is skipped, never half-read; the first of repeated names wins.
 */
import { ClawboxError } from "../../errors/index.ts";

const OPEN = "<Encrypt>";
const CLOSE = "</Encrypt>";
const CDATA_OPEN = "<![CDATA[";
const CDATA_CLOSE = "]]>";

function isBase64(text: string): boolean {
  if (text.length === 0 || text.length % 4 !== 0) return false;
  const end = text.endsWith("==")
    ? text.length - 2
    : text.endsWith("=")
      ? text.length - 1
      : text.length;
  for (let i = 0; i < end; i++) {
    const c = text.charCodeAt(i);
    const ok =
      (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || (c >= 48 && c <= 57) || c === 43 || c === 47;
    if (!ok) return false;
  }
  return true;
}

/**
 * The base64 text of the body's `<Encrypt>` element, or undefined when there is none.
 * Searched in the raw bytes (nothing is decoded but that element's own text).
 */
export function encryptedField(body: Uint8Array | string): string | undefined {
  const bytes =
    typeof body === "string"
      ? Buffer.from(body, "utf8")
      : Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  const open = bytes.indexOf(OPEN);
  if (open < 0) return undefined;
  const start = open + OPEN.length;
  const end = bytes.indexOf(CLOSE, start);
  if (end < 0) return undefined;
  let value = bytes.subarray(start, end).toString("latin1").trim();
  if (value.startsWith(CDATA_OPEN) && value.endsWith(CDATA_CLOSE))
    value = value.slice(CDATA_OPEN.length, -CDATA_CLOSE.length);
  return isBase64(value) ? value : undefined;
}

/** The text of each flat child element of the document, by tag name. */
export async function readXmlFields(xml: string): Promise<Record<string, string>> {
  const { SaxesParser } = await import("saxes");
  const parser = new SaxesParser();
  const fields: Record<string, string> = {};
  let depth = 0;
  let name: string | undefined;
  let text = "";
  let nested = false;
  parser.on("opentag", (tag) => {
    depth++;
    if (depth === 2) {
      name = tag.name;
      text = "";
      nested = false;
    } else if (depth > 2) nested = true;
  });
  parser.on("text", (chunk) => {
    if (depth === 2) text += chunk;
  });
  parser.on("cdata", (chunk) => {
    if (depth === 2) text += chunk;
  });
  parser.on("closetag", () => {
    if (depth === 2 && name !== undefined && !nested && !(name in fields)) fields[name] = text;
    depth--;
  });
  try {
    parser.write(xml).close();
  } catch (error) {
    throw new ClawboxError(
      "HTTP_BAD_REQUEST",
      "WeCom callback: the message is not well-formed XML",
      {
        cause: error,
      },
    );
  }
  return fields;
}
