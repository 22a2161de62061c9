/**
 * Reads the header of a GGUF model file (v2/v3): metadata key/values and tensor infos,
 * never tensor data. Arrays are summarised (type and length) instead of loaded, except
 * the token list, which is scanned for the 256 SentencePiece byte tokens llama.cpp needs.
 * Memory use stays small for any file; every malformed input becomes MODEL_INVALID (or
 * MODEL_NOT_FOUND) naming the file and what is wrong.
 */
import { open, stat } from "node:fs/promises";
import { ClawboxError } from "../errors/index.ts";
import { GgufByteReader } from "./gguf-byte-reader.ts";
import {
  alignOffset,
  fixedValueSize,
  GGUF_DEFAULT_ALIGNMENT,
  GGUF_MAGIC,
  GGUF_MAX_DIMS,
  GgufValueType,
  ggmlTensorBytes,
  minValueSize,
} from "./gguf-format.ts";

export type GgufScalar = number | bigint | boolean | string;
/** Arrays are never kept: only their item type id and length. */
export interface GgufArraySummary {
  kind: "array";
  itemType: number;
  length: number;
}
export type GgufMetadataValue = GgufScalar | GgufArraySummary;

export interface GgufHeader {
  path: string;
  version: number;
  tensorCount: number;
  sizeBytes: number;
  alignment: number;
  /** Byte offset where tensor data starts. */
  tensorDataOffset: number;
  /** general.architecture, e.g. "llama", "qwen2". */
  architecture: string | undefined;
  name: string | undefined;
  /** `<arch>.context_length`: the trained context window. */
  contextLength: number | undefined;
  embeddingLength: number | undefined;
  blockCount: number | undefined;
  headCount: number | undefined;
  /** general.file_type (llama_ftype: 0 F32, 1 F16, 2 Q4_0, 7 Q8_0, 15 Q4_K_M, …). */
  fileType: number | undefined;
  /** tokenizer.ggml.model: "llama" (SentencePiece), "gpt2" (BPE), "bert", … */
  tokenizerModel: string | undefined;
  /** Length of tokenizer.ggml.tokens. */
  vocabSize: number | undefined;
  tokenScoresCount: number | undefined;
  tokenTypesCount: number | undefined;
  /** How many distinct byte tokens `<0x00>`…`<0xFF>` the vocabulary holds. */
  byteTokenCount: number;
  /** All 256 byte tokens present; llama.cpp aborts on SentencePiece vocabs without them. */
  hasAllByteTokens: boolean;
  hasChatTemplate: boolean;
  /** Every metadata key: scalars as values, arrays as summaries. */
  metadata: ReadonlyMap<string, GgufMetadataValue>;
}

const MAX_KEY_BYTES = 65_535;
const MAX_STRING_BYTES = 16 * 1024 * 1024;
const MAX_TENSOR_NAME_BYTES = 1024;
const MAX_ARRAY_DEPTH = 4;
const TOKENS_KEY = "tokenizer.ggml.tokens";
const BYTE_TOKEN = /^<0x([0-9A-F]{2})>$/;

/** Parses the GGUF header of `path` without reading tensor data. */
export async function readGgufHeader(path: string): Promise<GgufHeader> {
  const size = await fileSize(path);
  const file = await open(path, "r").catch((error: unknown) => {
    throw new ClawboxError("MODEL_INVALID", `${path}: cannot open model file`, { cause: error });
  });
  try {
    return await parse(new GgufByteReader(file, path, size));
  } finally {
    await file.close();
  }
}

async function fileSize(path: string): Promise<number> {
  try {
    const info = await stat(path);
    if (!info.isFile()) throw new ClawboxError("MODEL_INVALID", `${path}: not a regular file`);
    return info.size;
  } catch (error) {
    if (error instanceof ClawboxError) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT") {
      throw new ClawboxError("MODEL_NOT_FOUND", `${path}: model file not found`, { cause: error });
    }
    throw new ClawboxError("MODEL_INVALID", `${path}: cannot read model file (${code})`, {
      cause: error,
    });
  }
}

interface TokenScan {
  /** seen[b] is 1 when the token `<0xBB>` is in the vocabulary. */
  seen: Uint8Array;
}

async function parse(reader: GgufByteReader): Promise<GgufHeader> {
  if (reader.fileSize < 4 || (await reader.u32()) !== GGUF_MAGIC) {
    throw new ClawboxError("MODEL_INVALID", `${reader.path}: not a GGUF file (wrong magic bytes)`, {
      details: { path: reader.path },
    });
  }
  const version = await reader.u32();
  if (version !== 2 && version !== 3) {
    throw reader.invalid(`GGUF version ${version} is not supported (only 2 and 3)`);
  }
  reader.context = "header counts";
  const tensorCount = await reader.count("tensor count", Math.floor(reader.remaining / 32));
  const kvCount = await reader.count("metadata count", Math.floor(reader.remaining / 13));

  const metadata = new Map<string, GgufMetadataValue>();
  const tokens: TokenScan = { seen: new Uint8Array(256) };
  for (let i = 0; i < kvCount; i++) {
    reader.context = `metadata entry ${i}`;
    const key = await reader.string(MAX_KEY_BYTES);
    reader.context = `metadata key ${key}`;
    const type = await reader.u32();
    metadata.set(key, await readValue(reader, type, key, tokens, 0));
  }

  const alignment = metadata.get("general.alignment") ?? GGUF_DEFAULT_ALIGNMENT;
  if (typeof alignment !== "number" || alignment < 1 || (alignment & (alignment - 1)) !== 0) {
    throw reader.invalid(`general.alignment ${String(alignment)} is not a power of two`);
  }
  const dataEnd = await readTensorInfos(reader, tensorCount, alignment);
  const tensorDataOffset = alignOffset(reader.offset, alignment);
  if (tensorCount > 0 && tensorDataOffset + dataEnd.end > reader.fileSize) {
    throw reader.invalid(
      `file is truncated: tensor ${dataEnd.name} ends at byte ${tensorDataOffset + dataEnd.end} but the file has ${reader.fileSize} bytes`,
    );
  }
  return summarise(reader, version, tensorCount, alignment, tensorDataOffset, metadata, tokens);
}

async function readValue(
  reader: GgufByteReader,
  type: number,
  key: string,
  tokens: TokenScan,
  depth: number,
): Promise<GgufMetadataValue> {
  if (type === GgufValueType.STRING) return reader.string(MAX_STRING_BYTES);
  if (type === GgufValueType.ARRAY) return readArray(reader, key, tokens, depth);
  const size = fixedValueSize(type);
  if (size === undefined) throw reader.invalid(`unknown value type ${type}`);
  return reader.scalar(type, size);
}

async function readArray(
  reader: GgufByteReader,
  key: string,
  tokens: TokenScan,
  depth: number,
): Promise<GgufArraySummary> {
  if (depth >= MAX_ARRAY_DEPTH) throw reader.invalid(`arrays nested deeper than ${depth}`);
  const itemType = await reader.u32();
  const length = await reader.count(
    "array length",
    Math.floor((reader.remaining - 8) / minValueSize(itemType)),
  );
  const size = fixedValueSize(itemType);
  if (size !== undefined) {
    reader.skip(length * size);
  } else if (itemType === GgufValueType.STRING) {
    const scan = key === TOKENS_KEY && depth === 0;
    for (let i = 0; i < length; i++) {
      const bytes = await reader.count("string length", reader.remaining - 8);
      if (scan && bytes === 6) {
        const match = BYTE_TOKEN.exec(await reader.text(bytes));
        if (match?.[1]) tokens.seen[Number.parseInt(match[1], 16)] = 1;
      } else {
        reader.skip(bytes);
      }
    }
  } else if (itemType === GgufValueType.ARRAY) {
    for (let i = 0; i < length; i++) {
      await readArray(reader, key, tokens, depth + 1);
    }
  } else {
    throw reader.invalid(`unknown array item type ${itemType}`);
  }
  return { kind: "array", itemType, length };
}

interface TensorDataEnd {
  end: number;
  name: string;
}

/** Reads tensor infos, checking shapes, types and alignment; returns where the data ends. */
async function readTensorInfos(
  reader: GgufByteReader,
  tensorCount: number,
  alignment: number,
): Promise<TensorDataEnd> {
  const last: TensorDataEnd = { end: 0, name: "" };
  for (let i = 0; i < tensorCount; i++) {
    reader.context = `tensor info ${i}`;
    const name = await reader.string(MAX_TENSOR_NAME_BYTES);
    reader.context = `tensor info ${name}`;
    const dims = await reader.u32();
    if (dims < 1 || dims > GGUF_MAX_DIMS) {
      throw reader.invalid(`tensor ${name} has ${dims} dimensions (1 to ${GGUF_MAX_DIMS} allowed)`);
    }
    let elements = 1n;
    for (let d = 0; d < dims; d++) elements *= await reader.u64();
    const type = await reader.u32();
    const offset = await reader.count(`tensor ${name} offset`, reader.fileSize);
    if (offset % alignment !== 0) {
      throw reader.invalid(`tensor ${name} offset ${offset} is not a multiple of ${alignment}`);
    }
    if (elements > BigInt(reader.fileSize) * 8n) {
      throw reader.invalid(`tensor ${name} has ${elements} elements, more than the file can hold`);
    }
    const bytes = ggmlTensorBytes(type, Number(elements));
    if (bytes !== undefined && offset + bytes > last.end) {
      last.end = offset + bytes;
      last.name = name;
    }
  }
  return last;
}

function summarise(
  reader: GgufByteReader,
  version: number,
  tensorCount: number,
  alignment: number,
  tensorDataOffset: number,
  metadata: ReadonlyMap<string, GgufMetadataValue>,
  tokens: TokenScan,
): GgufHeader {
  const text = (key: string): string | undefined => {
    const value = metadata.get(key);
    return typeof value === "string" ? value : undefined;
  };
  const num = (key: string): number | undefined => {
    const value = metadata.get(key);
    return typeof value === "number" ? value : undefined;
  };
  const arrayLength = (key: string): number | undefined => {
    const value = metadata.get(key);
    return typeof value === "object" ? value.length : undefined;
  };
  const architecture = text("general.architecture");
  const byteTokenCount = tokens.seen.reduce((sum, seen) => sum + seen, 0);
  return {
    path: reader.path,
    version,
    tensorCount,
    sizeBytes: reader.fileSize,
    alignment,
    tensorDataOffset,
    architecture,
    name: text("general.name"),
    contextLength: architecture ? num(`${architecture}.context_length`) : undefined,
    embeddingLength: architecture ? num(`${architecture}.embedding_length`) : undefined,
    blockCount: architecture ? num(`${architecture}.block_count`) : undefined,
    headCount: architecture ? num(`${architecture}.attention.head_count`) : undefined,
    fileType: num("general.file_type"),
    tokenizerModel: text("tokenizer.ggml.model"),
    vocabSize: arrayLength(TOKENS_KEY),
    tokenScoresCount: arrayLength("tokenizer.ggml.scores"),
    tokenTypesCount: arrayLength("tokenizer.ggml.token_type"),
    byteTokenCount,
    hasAllByteTokens: byteTokenCount === 256,
    hasChatTemplate: (text("tokenizer.chat_template") ?? "").length > 0,
    metadata,
  };
}
