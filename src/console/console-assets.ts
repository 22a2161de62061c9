/**
 * The client script (its parts joined in order) and styles, embedded in the program as
 * text (Bun text imports: in the compiled binary they are part of the bundle, no files
 * beside it, no CDN) and gzipped once on first use. Each asset has a content hash: the
 * pages link `console.js?v=HASH`, which may be cached for good (`immutable`) because a
 * new build links a new URL; the bare URL, or an old hash, is revalidated every time.
 */
import { createHash } from "node:crypto";
import { gzipSync } from "node:zlib";
import styles from "./assets/console.css" with { type: "text" };
import browse from "./assets/console-browse.js" with { type: "text" };
import chat from "./assets/console-chat.js" with { type: "text" };
import core from "./assets/console-core.js" with { type: "text" };
import files from "./assets/console-files.js" with { type: "text" };
import login from "./assets/console-login.js" with { type: "text" };
import manage from "./assets/console-manage.js" with { type: "text" };
import setup from "./assets/console-setup.js" with { type: "text" };
import status from "./assets/console-status.js" with { type: "text" };

/** The client parts in load order; one script shares their top-level names. */
const SCRIPT_PARTS = [core, chat, browse, manage, setup, files, status];

export interface ConsoleAsset {
  type: string;
  text: string;
  gzip: Uint8Array;
  /** First 12 hex digits of the text's sha256: the `v` of the asset's URL. */
  hash: string;
}

/** The URL a page links for `name`: versioned by content. */
export const assetUrl = (name: string, asset: ConsoleAsset): string =>
  `/console/assets/${name}?v=${asset.hash}`;

export function consoleAssets(): Map<string, ConsoleAsset> {
  const entry = (type: string, text: string): ConsoleAsset => ({
    type,
    text,
    gzip: gzipSync(text, { level: 9 }),
    hash: createHash("sha256").update(text).digest("hex").slice(0, 12),
  });
  return new Map([
    [
      "console.js",
      entry("text/javascript; charset=utf-8", `"use strict";\n${SCRIPT_PARTS.join("\n")}`),
    ],
    ["login.js", entry("text/javascript; charset=utf-8", login)],
    ["console.css", entry("text/css; charset=utf-8", styles)],
  ]);
}
