/**
 * Constants of the GGUF file format (ggml docs/gguf.md): metadata value type ids and
 * the storage size of ggml tensor types. Shared by the header reader and the writer so
 * both agree byte for byte.
 */

/** "GGUF" read as a little-endian u32. */
export const GGUF_MAGIC = 0x46554747;
export const GGUF_DEFAULT_ALIGNMENT = 32;
/** ggml cannot represent tensors with more dimensions than this. */
export const GGUF_MAX_DIMS = 4;

export const GgufValueType = {
  UINT8: 0,
  INT8: 1,
  UINT16: 2,
  INT16: 3,
  UINT32: 4,
  INT32: 5,
  FLOAT32: 6,
  BOOL: 7,
  STRING: 8,
  ARRAY: 9,
  UINT64: 10,
  INT64: 11,
  FLOAT64: 12,
} as const;
export type GgufValueType = (typeof GgufValueType)[keyof typeof GgufValueType];

const FIXED_VALUE_SIZES: ReadonlyMap<number, number> = new Map([
  [GgufValueType.UINT8, 1],
  [GgufValueType.INT8, 1],
  [GgufValueType.UINT16, 2],
  [GgufValueType.INT16, 2],
  [GgufValueType.UINT32, 4],
  [GgufValueType.INT32, 4],
  [GgufValueType.FLOAT32, 4],
  [GgufValueType.BOOL, 1],
  [GgufValueType.UINT64, 8],
  [GgufValueType.INT64, 8],
  [GgufValueType.FLOAT64, 8],
]);

/** Byte size of a fixed-size value type, or undefined for strings, arrays and unknown ids. */
export function fixedValueSize(type: number): number | undefined {
  return FIXED_VALUE_SIZES.get(type);
}

/** The smallest number of bytes any value of `type` occupies (for count sanity checks). */
export function minValueSize(type: number): number {
  if (type === GgufValueType.STRING) return 8;
  if (type === GgufValueType.ARRAY) return 12;
  return fixedValueSize(type) ?? 1;
}

export const GgmlType = { F32: 0, F16: 1 } as const;

/** [elements per block, bytes per block] of ggml tensor types (ggml.c type traits). */
const GGML_TYPE_BLOCKS: ReadonlyMap<number, readonly [number, number]> = new Map([
  [0, [1, 4]], // F32
  [1, [1, 2]], // F16
  [2, [32, 18]], // Q4_0
  [3, [32, 20]], // Q4_1
  [6, [32, 22]], // Q5_0
  [7, [32, 24]], // Q5_1
  [8, [32, 34]], // Q8_0
  [9, [32, 36]], // Q8_1
  [10, [256, 84]], // Q2_K
  [11, [256, 110]], // Q3_K
  [12, [256, 144]], // Q4_K
  [13, [256, 176]], // Q5_K
  [14, [256, 210]], // Q6_K
  [15, [256, 292]], // Q8_K
  [16, [256, 66]], // IQ2_XXS
  [17, [256, 74]], // IQ2_XS
  [18, [256, 98]], // IQ3_XXS
  [19, [256, 50]], // IQ1_S
  [20, [32, 18]], // IQ4_NL
  [21, [256, 110]], // IQ3_S
  [22, [256, 82]], // IQ2_S
  [23, [256, 136]], // IQ4_XS
  [24, [1, 1]], // I8
  [25, [1, 2]], // I16
  [26, [1, 4]], // I32
  [27, [1, 8]], // I64
  [28, [1, 8]], // F64
  [29, [256, 56]], // IQ1_M
  [30, [1, 2]], // BF16
  [34, [256, 54]], // TQ1_0
  [35, [256, 66]], // TQ2_0
  [39, [32, 17]], // MXFP4
]);

/**
 * Bytes that a tensor of ggml `type` with `elements` elements occupies, or undefined when
 * the type is unknown here (newer ggml) or the element count is not a whole number of blocks.
 */
export function ggmlTensorBytes(type: number, elements: number): number | undefined {
  const block = GGML_TYPE_BLOCKS.get(type);
  if (!block) return undefined;
  const [perBlock, bytes] = block;
  if (elements % perBlock !== 0) return undefined;
  return (elements / perBlock) * bytes;
}

/** Rounds `offset` up to a multiple of `alignment`. */
export function alignOffset(offset: number, alignment: number): number {
  const rest = offset % alignment;
  return rest === 0 ? offset : offset + alignment - rest;
}
