/**
 * The client script and styles, embedded in the program as text (Bun text imports: in
 * the compiled binary they are part of the bundle, no files beside it, no CDN) and
 * gzipped once on first use.
 */
import { gzipSync } from "node:zlib";
import styles from "./assets/console.css" with { type: "text" };
import script from "./assets/console.js" with { type: "text" };

export interface ConsoleAsset {
  type: string;
  text: string;
  gzip: Uint8Array;
}

export function consoleAssets(): Map<string, ConsoleAsset> {
  const entry = (type: string, text: string): ConsoleAsset => ({
    type,
    text,
    gzip: gzipSync(text, { level: 9 }),
  });
  return new Map([
    ["console.js", entry("text/javascript; charset=utf-8", script)],
    ["console.css", entry("text/css; charset=utf-8", styles)],
  ]);
}
