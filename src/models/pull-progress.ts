/**
 * A one-line text progress bar for downloads, redrawn in place with `\r` on a TTY and
 * printed at most every 10% otherwise (so logs stay short).
 */
import { formatBytes } from "../system/index.ts";
import type { PullProgress } from "./pull-file.ts";

export function formatProgress(p: PullProgress, elapsedMs: number, width = 24): string {
  const name = p.file.split("/").pop() ?? p.file;
  const rate = elapsedMs > 0 ? ((p.received - p.resumedFrom) / elapsedMs) * 1000 : 0;
  if (p.total === undefined || p.total <= 0)
    return `${name} ${formatBytes(p.received)} ${formatBytes(rate)}/s`;
  const ratio = Math.min(1, p.received / p.total);
  const filled = Math.round(ratio * width);
  const bar = `${"#".repeat(filled)}${"-".repeat(width - filled)}`;
  return `${name} [${bar}] ${Math.floor(ratio * 100)}% ${formatBytes(p.received)}/${formatBytes(p.total)} ${formatBytes(rate)}/s`;
}

export function createProgressPrinter(
  write: (text: string) => void,
  isTty: boolean,
  now: () => number = Date.now,
): { update(p: PullProgress): void; done(): void } {
  const start = now();
  let lastDecile = -1;
  let active = false;
  return {
    update(p) {
      const line = formatProgress(p, now() - start);
      if (isTty) {
        write(`\r${line}`);
        active = true;
        return;
      }
      const decile = p.total ? Math.floor((p.received / p.total) * 10) : -1;
      if (decile !== lastDecile) {
        lastDecile = decile;
        write(`${line}\n`);
      }
    },
    done() {
      if (active) write("\n");
      active = false;
    },
  };
}
