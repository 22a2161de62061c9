/**
 * Crash-safe file replacement for an SD card: write a temp file beside the target,
 * fsync it, rename it over the target, fsync the folder. A reader (or the next boot
 * after a power cut) sees either the old file or the new one, never a torn mix; a
 * failed write leaves the old file untouched and removes the temp file. A target that
 * is a symlink is written where the link points (the link itself stays); missing
 * parent folders are created.
 */
import {
  closeSync,
  fsyncSync,
  mkdirSync,
  openSync,
  realpathSync,
  renameSync,
  rmSync,
  statSync,
  writeSync,
} from "node:fs";
import { open } from "node:fs/promises";
import { basename, dirname, join } from "node:path";

export interface AtomicWriteOptions {
  /** File mode for a new file; an existing file keeps its mode. Default 0o644. */
  mode?: number;
  /**
   * Permission bits taken away from the mode, new or kept (e.g. 0o007: a file that
   * holds secrets stops being readable by other users when it is next written).
   */
  clearModeBits?: number;
}

function fsyncDirectory(dir: string): void {
  let fd: number | undefined;
  try {
    fd = openSync(dir, "r");
    fsyncSync(fd);
  } catch {
    // Some filesystems refuse fsync on a directory; the rename itself is still atomic.
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** Where a write to `path` lands: the real path when it exists (through links), else `path`. */
function linkTarget(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

/** A new temp file beside `path` (its folder created), open for writing. */
function openTempBeside(path: string, mode: number) {
  const dir = dirname(path);
  mkdirSync(dir, { recursive: true });
  const temp = join(
    dir,
    `.${basename(path)}.${process.pid}.${crypto.randomUUID().slice(0, 8)}.tmp`,
  );
  return { dir, temp, fd: openSync(temp, "wx", mode) };
}

/** Closes and removes a temp file whose write failed. */
function discardTemp(fd: number, temp: string): void {
  try {
    closeSync(fd);
  } catch {
    // already closed
  }
  rmSync(temp, { force: true });
}

function writeAll(fd: number, bytes: Uint8Array): void {
  let offset = 0;
  while (offset < bytes.length) {
    offset += writeSync(fd, bytes, offset, bytes.length - offset);
  }
}

/** The temp file's data on disk, then the rename, then the folder entry on disk. */
function commitTemp(file: { dir: string; temp: string; fd: number }, path: string): void {
  const { dir, fd, temp } = file;
  try {
    fsyncSync(fd);
    closeSync(fd);
    renameSync(temp, path);
  } catch (error) {
    discardTemp(fd, temp);
    throw error;
  }
  fsyncDirectory(dir);
}

/** Replaces `path` with `data` atomically and durably. Throws the underlying fs error. */
export function writeFileAtomic(
  path: string,
  data: string | Uint8Array,
  options: AtomicWriteOptions = {},
): void {
  path = linkTarget(path);
  let mode = options.mode ?? 0o644;
  try {
    mode = statSync(path).mode & 0o7777;
  } catch {
    // New file: the given or default mode.
  }
  mode &= ~(options.clearModeBits ?? 0);
  const file = openTempBeside(path, mode);
  try {
    writeAll(file.fd, typeof data === "string" ? Buffer.from(data, "utf8") : data);
  } catch (error) {
    discardTemp(file.fd, file.temp);
    throw error;
  }
  commitTemp(file, path);
}

/**
 * Moves a file someone else wrote (`temp`, e.g. a native library's output) into place at
 * `path` the same crash-safe way: fsync the temp file (off the event loop: a file of
 * hundreds of MB takes seconds to reach an SD card), rename it over `path`, fsync the
 * folder. `temp` must be in the folder of `path`. On failure `temp` is removed and the
 * old `path` is untouched.
 */
export async function commitFileAtomic(temp: string, path: string): Promise<void> {
  try {
    const handle = await open(temp, "r");
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
    renameSync(temp, path);
  } catch (error) {
    rmSync(temp, { force: true });
    throw error;
  }
  fsyncDirectory(dirname(path));
}

/** Removes `path` and makes the removal durable (fsync of the folder). */
export function removeFileDurable(path: string): void {
  rmSync(path);
  fsyncDirectory(dirname(path));
}

/**
 * Writes `chunks` to `path` the same crash-safe way as `writeFileAtomic` (temp file
 * beside it, fsync, rename, fsync of the folder), for data too large to hold in memory
 * (a backup file). A failed write, a full disk included, leaves no temp file behind and
 * any old file at `path` untouched.
 */
export async function writeStreamAtomic(
  path: string,
  chunks: AsyncIterable<Uint8Array>,
  options: AtomicWriteOptions = {},
): Promise<void> {
  path = linkTarget(path);
  const file = openTempBeside(path, (options.mode ?? 0o644) & ~(options.clearModeBits ?? 0));
  try {
    for await (const bytes of chunks) writeAll(file.fd, bytes);
  } catch (error) {
    discardTemp(file.fd, file.temp);
    throw error;
  }
  commitTemp(file, path);
}

/**
 * Renames `from` to `to` (a file or a folder, same filesystem) and makes the rename
 * durable: both folders are fsynced, so after a power cut the entry is in one place.
 */
export function renameDurable(from: string, to: string): void {
  renameSync(from, to);
  fsyncDirectory(dirname(to));
  if (dirname(from) !== dirname(to)) fsyncDirectory(dirname(from));
}
