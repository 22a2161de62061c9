/**
 * Sequential little-endian reader over a file that reads it in small chunks, so a GGUF
 * header can be parsed without loading gigabytes of tensor data. Every read is checked
 * against the file size first: a truncated or lying file yields a MODEL_INVALID error
 * that names the file, the byte offset and what was being read — never a crash or a
 * huge allocation.
 */
import type { FileHandle } from "node:fs/promises";
import { ClawboxError } from "../errors/index.ts";

const CHUNK_BYTES = 64 * 1024;
const decoder = new TextDecoder("utf-8", { fatal: false });

export class GgufByteReader {
  /** Label of what is being read, used in error messages ("metadata key general.name"). */
  context = "header";
  private position = 0;
  private buffer = new Uint8Array(CHUNK_BYTES);
  private view = new DataView(this.buffer.buffer);
  private bufferStart = 0;
  private bufferEnd = 0;

  constructor(
    private readonly file: FileHandle,
    readonly path: string,
    readonly fileSize: number,
  ) {}

  get offset(): number {
    return this.position;
  }

  get remaining(): number {
    return this.fileSize - this.position;
  }

  /** A MODEL_INVALID error naming the file, current offset and context. */
  invalid(what: string): ClawboxError {
    return new ClawboxError(
      "MODEL_INVALID",
      `${this.path}: invalid GGUF file: ${what} (at byte ${this.position}, while reading ${this.context})`,
      { details: { path: this.path, offset: this.position, context: this.context } },
    );
  }

  private truncated(needed: number): ClawboxError {
    return this.invalid(
      `file is truncated: ${needed} more bytes needed but only ${this.remaining} remain of ${this.fileSize}`,
    );
  }

  /** Makes `count` bytes at the current position available in the buffer; returns their index. */
  private async ensure(count: number): Promise<number> {
    if (count > this.remaining) throw this.truncated(count);
    if (this.position >= this.bufferStart && this.position + count <= this.bufferEnd) {
      return this.position - this.bufferStart;
    }
    if (count > this.buffer.length) {
      this.buffer = new Uint8Array(count);
      this.view = new DataView(this.buffer.buffer);
    }
    const want = Math.min(this.buffer.length, this.remaining);
    const { bytesRead } = await this.file.read(this.buffer, 0, want, this.position);
    if (bytesRead < count) throw this.truncated(count);
    this.bufferStart = this.position;
    this.bufferEnd = this.position + bytesRead;
    return 0;
  }

  async u8(): Promise<number> {
    const at = await this.ensure(1);
    this.position += 1;
    return this.view.getUint8(at);
  }

  async u32(): Promise<number> {
    const at = await this.ensure(4);
    this.position += 4;
    return this.view.getUint32(at, true);
  }

  async u64(): Promise<bigint> {
    const at = await this.ensure(8);
    this.position += 8;
    return this.view.getBigUint64(at, true);
  }

  /** A u64 that must fit a safe JS integer and not exceed `max` (e.g. bytes left in the file). */
  async count(what: string, max: number): Promise<number> {
    const value = await this.u64();
    if (value > BigInt(max)) {
      throw this.invalid(`${what} ${value} is impossible (at most ${max} fits in the file)`);
    }
    return Number(value);
  }

  /** Reads one fixed-size scalar of GGUF value `type` (see gguf-format). */
  async scalar(type: number, size: number): Promise<number | bigint | boolean> {
    const at = await this.ensure(size);
    this.position += size;
    const v = this.view;
    switch (type) {
      case 0:
        return v.getUint8(at);
      case 1:
        return v.getInt8(at);
      case 2:
        return v.getUint16(at, true);
      case 3:
        return v.getInt16(at, true);
      case 4:
        return v.getUint32(at, true);
      case 5:
        return v.getInt32(at, true);
      case 6:
        return v.getFloat32(at, true);
      case 7:
        return v.getUint8(at) !== 0;
      case 10:
        return safeNumber(v.getBigUint64(at, true));
      case 11:
        return safeNumber(v.getBigInt64(at, true));
      case 12:
        return v.getFloat64(at, true);
      default:
        throw this.invalid(`unknown value type ${type}`);
    }
  }

  /** Reads a GGUF string (u64 length + UTF-8 bytes) of at most `maxBytes` bytes. */
  async string(maxBytes: number): Promise<string> {
    const length = await this.count("string length", this.remaining - 8);
    if (length > maxBytes)
      throw this.invalid(`string of ${length} bytes is longer than ${maxBytes}`);
    return this.text(length);
  }

  /** Decodes the next `length` bytes as UTF-8 (a string body whose length was already read). */
  async text(length: number): Promise<string> {
    const at = await this.ensure(length);
    this.position += length;
    return decoder.decode(this.buffer.subarray(at, at + length));
  }

  /** Advances past `count` bytes without reading them. */
  skip(count: number): void {
    if (count > this.remaining) throw this.truncated(count);
    this.position += count;
  }
}

function safeNumber(value: bigint): number | bigint {
  return value <= BigInt(Number.MAX_SAFE_INTEGER) && value >= BigInt(Number.MIN_SAFE_INTEGER)
    ? Number(value)
    : value;
}
