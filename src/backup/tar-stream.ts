/**
 * The container inside a backup: a plain POSIX tar (ustar, with a PAX `path` record for
 * long or non-ASCII names), so a person holding the passphrase can also open a backup
 * with the `age` and `tar` tools alone. Only regular files are written or read; the
 * reader refuses links, devices and any name that could land outside the folder it is
 * extracted to, and reads as a stream (a backup is never held in memory whole).
 */
import { ClawboxError } from "../errors/index.ts";

const BLOCK = 512;
const encoder = new TextEncoder();
const decoder = new TextDecoder("utf-8", { fatal: true });

function damaged(why: string): ClawboxError {
  return new ClawboxError("BACKUP_INVALID", `the backup's contents are damaged: ${why}`, {
    hint: "the file was changed or cut short after it was written; use another copy",
  });
}

function writeField(block: Uint8Array, offset: number, length: number, text: string): void {
  block.set(encoder.encode(text).subarray(0, length), offset);
}

function octal(value: number, length: number): string {
  return `${value.toString(8).padStart(length - 1, "0")}\0`;
}

function header(name: string, size: number, mode: number, mtime: number, type: string) {
  const block = new Uint8Array(BLOCK);
  writeField(block, 0, 100, name);
  writeField(block, 100, 8, octal(mode & 0o7777, 8));
  writeField(block, 108, 8, octal(0, 8));
  writeField(block, 116, 8, octal(0, 8));
  writeField(block, 124, 12, octal(size, 12));
  writeField(block, 136, 12, octal(Math.floor(mtime / 1000), 12));
  writeField(block, 148, 8, "        ");
  writeField(block, 156, 1, type);
  writeField(block, 257, 6, "ustar\0");
  writeField(block, 263, 2, "00");
  let sum = 0;
  for (const byte of block) sum += byte;
  writeField(block, 148, 8, `${sum.toString(8).padStart(6, "0")}\0 `);
  return block;
}

function padding(size: number): Uint8Array {
  const rest = size % BLOCK;
  return new Uint8Array(rest === 0 ? 0 : BLOCK - rest);
}

/** A PAX record "LEN key=value\n", whose LEN counts its own digits. */
function paxRecord(key: string, value: string): Uint8Array {
  const body = encoder.encode(` ${key}=${value}\n`);
  let length = body.length + 1;
  while (String(length).length + body.length > length) length += 1;
  return encoder.encode(`${length} ${key}=${value}\n`);
}

export interface TarFileEntry {
  path: string;
  size: number;
  mode: number;
  mtimeMs: number;
  /** Exactly `size` bytes in all. */
  body: AsyncIterable<Uint8Array> | Iterable<Uint8Array>;
}

/** The tar bytes of `entries`, in order, ending with the two zero blocks. */
export async function* tarStream(entries: AsyncIterable<TarFileEntry>): AsyncGenerator<Uint8Array> {
  for await (const entry of entries) {
    const plainName = /^[\x20-\x7e]{1,99}$/.test(entry.path);
    if (!plainName) {
      const pax = paxRecord("path", entry.path);
      yield header("PaxHeader", pax.length, 0o644, entry.mtimeMs, "x");
      yield pax;
      yield padding(pax.length);
    }
    const name = plainName ? entry.path : entry.path.replace(/[^\x20-\x7e]/g, "_").slice(-99);
    yield header(name, entry.size, entry.mode, entry.mtimeMs, "0");
    let written = 0;
    for await (const chunk of entry.body) {
      written += chunk.length;
      yield chunk;
    }
    if (written !== entry.size)
      throw new ClawboxError(
        "INTERNAL",
        `${entry.path} changed while it was backed up (${written} bytes, expected ${entry.size})`,
      );
    yield padding(entry.size);
  }
  yield new Uint8Array(BLOCK * 2);
}

/** Reads exact byte counts from a stream of chunks. */
class ByteReader {
  private buffered: Uint8Array[] = [];
  private length = 0;
  constructor(private readonly source: AsyncIterator<Uint8Array>) {}

  private async fill(n: number): Promise<boolean> {
    while (this.length < n) {
      const next = await this.source.next();
      if (next.done) return false;
      this.buffered.push(next.value);
      this.length += next.value.length;
    }
    return true;
  }

  /** Up to `max` bytes (at least one), or undefined at the end of the stream. */
  async some(max: number): Promise<Uint8Array | undefined> {
    if (!(await this.fill(1))) return undefined;
    const first = this.buffered[0] as Uint8Array;
    if (first.length <= max) {
      this.buffered.shift();
      this.length -= first.length;
      return first;
    }
    this.buffered[0] = first.subarray(max);
    this.length -= max;
    return first.subarray(0, max);
  }

  /** Exactly `n` bytes; a stream that ends first is a damaged backup. */
  async exactly(n: number): Promise<Uint8Array> {
    if (!(await this.fill(n))) throw damaged("it ends in the middle of an entry");
    const out = new Uint8Array(n);
    let offset = 0;
    while (offset < n) {
      const part = (await this.some(n - offset)) as Uint8Array;
      out.set(part, offset);
      offset += part.length;
    }
    return out;
  }

  async skip(n: number): Promise<void> {
    let left = n;
    while (left > 0) {
      const part = await this.some(left);
      if (!part) throw damaged("it ends in the middle of an entry");
      left -= part.length;
    }
  }
}

function field(block: Uint8Array, offset: number, length: number): string {
  const raw = block.subarray(offset, offset + length);
  const end = raw.indexOf(0);
  return new TextDecoder().decode(end < 0 ? raw : raw.subarray(0, end));
}

function parseOctal(block: Uint8Array, offset: number, length: number, what: string): number {
  const text = field(block, offset, length).trim();
  if (!/^[0-7]+$/.test(text)) throw damaged(`a tar header has no valid ${what}`);
  return Number.parseInt(text, 8);
}

function checksumOk(block: Uint8Array): boolean {
  let sum = 0;
  for (let i = 0; i < BLOCK; i += 1) sum += i >= 148 && i < 156 ? 32 : (block[i] as number);
  return sum === parseOctal(block, 148, 8, "checksum");
}

/** A name that stays inside the folder it is extracted to: relative, no `..`, no empty part. */
export function safeRelativePath(path: string): boolean {
  if (path.length === 0 || path.startsWith("/") || path.includes("\0")) return false;
  return path.split("/").every((part) => part !== "" && part !== "." && part !== "..");
}

export interface TarReadEntry {
  path: string;
  size: number;
  mode: number;
  /** Must be read to its end before the next entry is asked for. */
  body: AsyncIterable<Uint8Array>;
}

/** The regular files of a tar stream, in order. Anything else is refused as damage. */
export async function* readTar(chunks: AsyncIterable<Uint8Array>): AsyncGenerator<TarReadEntry> {
  const reader = new ByteReader(chunks[Symbol.asyncIterator]());
  let paxPath: string | undefined;
  for (;;) {
    const block = await reader.exactly(BLOCK);
    if (block.every((b) => b === 0)) return;
    if (!checksumOk(block)) throw damaged("a tar header's checksum does not match");
    const size = parseOctal(block, 124, 12, "size");
    const type = field(block, 156, 1) || "0";
    if (type === "x") {
      const record = await reader.exactly(size);
      await reader.skip(padding(size).length);
      let text: string;
      try {
        text = decoder.decode(record);
      } catch {
        throw damaged("a PAX header is not UTF-8");
      }
      const match = /(?:^|\n)\d+ path=([^\n]*)\n/.exec(text);
      paxPath = match?.[1];
      continue;
    }
    const path = paxPath ?? field(block, 0, 100);
    paxPath = undefined;
    if (type !== "0") throw damaged(`${path} is not a regular file (tar type ${type})`);
    if (!safeRelativePath(path)) throw damaged(`the name ${JSON.stringify(path)} is not allowed`);
    const mode = parseOctal(block, 100, 8, "mode");
    let left = size;
    const body = (async function* () {
      while (left > 0) {
        const part = await reader.some(left);
        if (!part) throw damaged(`it ends inside ${path}`);
        left -= part.length;
        yield part;
      }
    })();
    yield { path, size, mode, body };
    if (left > 0) await reader.skip(left);
    await reader.skip(padding(size).length);
  }
}
