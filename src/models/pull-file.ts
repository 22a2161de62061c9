/**
 * Downloads one file with resume and checksum verification. Bytes go to `<dest>.part`;
 * after an interruption the next call asks for the rest with an HTTP Range request
 * (a server that ignores Range gets a fresh start). The file is renamed into place only
 * when its sha256 matches, so a half-downloaded or corrupt model is never loaded.
 */
import { createHash, type Hash } from "node:crypto";
import { createReadStream, existsSync, renameSync, rmSync, statSync } from "node:fs";
import { open } from "node:fs/promises";
import { ClawboxError, errorMessage } from "../errors/index.ts";

export interface PullProgress {
  file: string;
  received: number;
  /** Total bytes when known (Content-Length/Content-Range or the manifest). */
  total: number | undefined;
  resumedFrom: number;
}

export interface PullFileOptions {
  url: string;
  dest: string;
  /** Expected sha256 (hex); null/undefined means unverified (the caller decided). */
  sha256?: string | null;
  size?: number;
  onProgress?: (progress: PullProgress) => void;
  signal?: AbortSignal;
  fetchImpl?: typeof fetch;
  /** Where the URL came from, for the hint of a failed request (default "the model manifest"). */
  source?: string;
}

export interface PullFileResult {
  path: string;
  bytes: number;
  sha256: string;
  resumedFrom: number;
  verified: boolean;
}

async function hashExisting(path: string, hash: Hash): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    const stream = createReadStream(path);
    stream.on("data", (chunk) => hash.update(chunk));
    stream.on("end", () => resolve());
    stream.on("error", reject);
  });
}

function totalFrom(response: Response, offset: number): number | undefined {
  const range = response.headers.get("content-range");
  const match = range ? /\/(\d+)\s*$/.exec(range) : null;
  if (match?.[1]) return Number(match[1]);
  const length = response.headers.get("content-length");
  return length ? offset + Number(length) : undefined;
}

export async function pullFile(options: PullFileOptions): Promise<PullFileResult> {
  const part = `${options.dest}.part`;
  const doFetch = options.fetchImpl ?? fetch;
  let offset = existsSync(part) ? statSync(part).size : 0;
  const headers: Record<string, string> = offset > 0 ? { Range: `bytes=${offset}-` } : {};
  let response: Response;
  try {
    response = await doFetch(options.url, { headers, signal: options.signal ?? null });
  } catch (error) {
    throw new ClawboxError(
      "PROVIDER_NETWORK",
      `download of ${options.url} failed: ${String(error)}`,
      {
        hint: "check the network and run the same command again: it resumes",
        cause: error,
      },
    );
  }
  if (response.status === 416 && offset > 0) {
    // The .part already holds everything (or more): start over to be safe.
    await response.body?.cancel();
    rmSync(part, { force: true });
    return pullFile(options);
  }
  if (response.status !== 200 && response.status !== 206) {
    await response.body?.cancel();
    throw new ClawboxError(
      "PROVIDER_BAD_RESPONSE",
      `download of ${options.url} failed: HTTP ${response.status}`,
      { hint: `check the URL in ${options.source ?? "the model manifest"}` },
    );
  }
  if (response.status === 200) offset = 0; // server ignored Range: restart
  const resumedFrom = offset;
  const total = totalFrom(response, offset) ?? options.size;
  const hash = createHash("sha256");
  if (offset > 0) await hashExisting(part, hash);

  const handle = await open(part, offset > 0 ? "a" : "w");
  let received = offset;
  try {
    if (!response.body) throw new ClawboxError("PROVIDER_NETWORK", "empty response body");
    for await (const chunk of response.body) {
      hash.update(chunk);
      await handle.write(chunk);
      received += chunk.length;
      options.onProgress?.({ file: options.dest, received, total, resumedFrom });
    }
  } catch (error) {
    throw new ClawboxError(
      "PROVIDER_NETWORK",
      `download of ${options.url} interrupted after ${received} bytes: ${errorMessage(error)}`,
      { hint: "run the same command again: it resumes from the .part file", cause: error },
    );
  } finally {
    await handle.close();
  }
  if (total !== undefined && received !== total) {
    throw new ClawboxError(
      "PROVIDER_NETWORK",
      `download of ${options.url} ended early: ${received} of ${total} bytes`,
      { hint: "run the same command again: it resumes from the .part file" },
    );
  }
  const actual = hash.digest("hex");
  if (options.sha256 && actual !== options.sha256) {
    rmSync(part, { force: true });
    throw new ClawboxError(
      "MODEL_INVALID",
      `checksum mismatch for ${options.dest}: expected sha256 ${options.sha256}, got ${actual}`,
      {
        hint: "the partial file was deleted; pull again, and if it persists the manifest entry or the mirror is wrong",
      },
    );
  }
  renameSync(part, options.dest);
  return {
    path: options.dest,
    bytes: received,
    sha256: actual,
    resumedFrom,
    verified: Boolean(options.sha256),
  };
}
