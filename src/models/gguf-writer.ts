/**
 * Encodes a GGUF v3 file from metadata and f32 tensors. Used to generate tiny test
 * models (test/fixtures/tiny-gguf.ts) so tests never depend on files outside the repo;
 * it writes exactly what gguf-header.ts reads (same constants, same alignment rules).
 */
import { ClawboxError } from "../errors/index.ts";
import {
  alignOffset,
  GGUF_DEFAULT_ALIGNMENT,
  GGUF_MAGIC,
  GgmlType,
  GgufValueType,
} from "./gguf-format.ts";

export type GgufEntry =
  | { key: string; type: "string"; value: string }
  | { key: string; type: "u32" | "i32" | "f32"; value: number }
  | { key: string; type: "bool"; value: boolean }
  | { key: string; type: "string[]"; value: readonly string[] }
  | { key: string; type: "f32[]" | "i32[]"; value: ArrayLike<number> };

export interface GgufTensorData {
  name: string;
  /** ggml order: dims[0] is the innermost (row length). */
  dims: readonly number[];
  data: Float32Array;
}

const encoder = new TextEncoder();

/** Little-endian byte builder that grows as needed. */
class ByteSink {
  private bytes = new Uint8Array(1 << 16);
  private view = new DataView(this.bytes.buffer);
  length = 0;

  private reserve(count: number): number {
    if (this.length + count > this.bytes.length) {
      const next = new Uint8Array(Math.max(this.bytes.length * 2, this.length + count));
      next.set(this.bytes.subarray(0, this.length));
      this.bytes = next;
      this.view = new DataView(next.buffer);
    }
    const at = this.length;
    this.length += count;
    return at;
  }

  u32(value: number): void {
    const at = this.reserve(4);
    this.view.setUint32(at, value, true);
  }
  i32(value: number): void {
    const at = this.reserve(4);
    this.view.setInt32(at, value, true);
  }
  f32(value: number): void {
    const at = this.reserve(4);
    this.view.setFloat32(at, value, true);
  }
  u64(value: number): void {
    const at = this.reserve(8);
    this.view.setBigUint64(at, BigInt(value), true);
  }
  u8(value: number): void {
    const at = this.reserve(1);
    this.view.setUint8(at, value);
  }
  raw(data: Uint8Array): void {
    const at = this.reserve(data.length);
    this.bytes.set(data, at);
  }
  string(value: string): void {
    const data = encoder.encode(value);
    this.u64(data.length);
    this.raw(data);
  }
  padTo(alignment: number): void {
    this.reserve(alignOffset(this.length, alignment) - this.length);
  }
  result(): Uint8Array {
    return this.bytes.slice(0, this.length);
  }
}

function writeEntry(sink: ByteSink, entry: GgufEntry): void {
  sink.string(entry.key);
  switch (entry.type) {
    case "string":
      sink.u32(GgufValueType.STRING);
      sink.string(entry.value);
      return;
    case "u32":
      sink.u32(GgufValueType.UINT32);
      sink.u32(entry.value);
      return;
    case "i32":
      sink.u32(GgufValueType.INT32);
      sink.i32(entry.value);
      return;
    case "f32":
      sink.u32(GgufValueType.FLOAT32);
      sink.f32(entry.value);
      return;
    case "bool":
      sink.u32(GgufValueType.BOOL);
      sink.u8(entry.value ? 1 : 0);
      return;
    case "string[]":
      sink.u32(GgufValueType.ARRAY);
      sink.u32(GgufValueType.STRING);
      sink.u64(entry.value.length);
      for (const item of entry.value) sink.string(item);
      return;
    case "f32[]":
    case "i32[]": {
      const isFloat = entry.type === "f32[]";
      sink.u32(GgufValueType.ARRAY);
      sink.u32(isFloat ? GgufValueType.FLOAT32 : GgufValueType.INT32);
      sink.u64(entry.value.length);
      for (let i = 0; i < entry.value.length; i++) {
        const item = entry.value[i] ?? 0;
        if (isFloat) sink.f32(item);
        else sink.i32(item);
      }
      return;
    }
  }
}

/** Encodes a complete GGUF v3 file (default alignment 32, f32 tensors). */
export function encodeGguf(
  entries: readonly GgufEntry[],
  tensors: readonly GgufTensorData[],
): Uint8Array {
  const alignment = GGUF_DEFAULT_ALIGNMENT;
  const sink = new ByteSink();
  sink.u32(GGUF_MAGIC);
  sink.u32(3);
  sink.u64(tensors.length);
  sink.u64(entries.length);
  for (const entry of entries) writeEntry(sink, entry);

  let offset = 0;
  for (const tensor of tensors) {
    const elements = tensor.dims.reduce((product, dim) => product * dim, 1);
    if (elements !== tensor.data.length) {
      throw new ClawboxError(
        "INTERNAL",
        `GGUF writer: tensor ${tensor.name}: dims hold ${elements} values, data has ${tensor.data.length}`,
      );
    }
    sink.string(tensor.name);
    sink.u32(tensor.dims.length);
    for (const dim of tensor.dims) sink.u64(dim);
    sink.u32(GgmlType.F32);
    sink.u64(offset);
    offset = alignOffset(offset + tensor.data.byteLength, alignment);
  }
  for (const tensor of tensors) {
    sink.padTo(alignment);
    sink.raw(new Uint8Array(tensor.data.buffer, tensor.data.byteOffset, tensor.data.byteLength));
  }
  return sink.result();
}
