/**
 * The client script (five parts joined in order) and styles, embedded in the program as
 * text (Bun text imports: in the compiled binary they are part of the bundle, no files
 * beside it, no CDN) and gzipped once on first use.
 */
import { gzipSync } from "node:zlib";
import styles from "./assets/console.css" with { type: "text" };
import browse from "./assets/console-browse.js" with { type: "text" };
import chat from "./assets/console-chat.js" with { type: "text" };
import core from "./assets/console-core.js" with { type: "text" };
import manage from "./assets/console-manage.js" with { type: "text" };
import status from "./assets/console-status.js" with { type: "text" };

/** The client parts in load order; one script shares their top-level names. */
const SCRIPT_PARTS = [core, chat, browse, manage, status];

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
    [
      "console.js",
      entry("text/javascript; charset=utf-8", `"use strict";\n${SCRIPT_PARTS.join("\n")}`),
    ],
    ["console.css", entry("text/css; charset=utf-8", styles)],
  ]);
}
