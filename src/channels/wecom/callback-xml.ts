/**
 * WeCom callback XML: a flat `<xml>` element whose children are text or CDATA
 * (`<Encrypt>` outside, `<MsgType>`, `<Content>`… inside). Only that flat shape is
 * read: a child with nested elements is skipped, never half-read. No XML library is
 * needed for it; anything that does not look like this shape is rejected by the
 * zod schemas of the callers.
 */
const FIELD = /<([A-Za-z_][\w.-]*)>(?:<!\[CDATA\[([\s\S]*?)\]\]>|([^<]*))<\/\1>/g;
const ENTITIES: Record<string, string> = {
  "&lt;": "<",
  "&gt;": ">",
  "&amp;": "&",
  "&quot;": '"',
  "&apos;": "'",
};

/** The text of each flat child element of the document, by tag name. */
export function readXmlFields(xml: string): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const match of xml.matchAll(FIELD)) {
    const [, name, cdata, text] = match;
    if (!name || name === "xml" || name in fields) continue;
    fields[name] =
      cdata ?? (text ?? "").replace(/&(lt|gt|amp|quot|apos);/g, (e) => ENTITIES[e] ?? e);
  }
  return fields;
}
