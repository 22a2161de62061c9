/**
 * Writes the generated tiny ONNX embedding model (model.onnx, tokenizer.json,
 * clawbox-model.json) into a folder, for trying memory search by hand without a
 * download: `bun scripts/make-test-embedding-model.ts DIR [--dim 64] [--int8]`, then set
 * `memory.embedding.dir` to DIR in clawbox.json. Not semantic: texts are similar when
 * they share words.
 */
import { resolve } from "node:path";
import { writeTinyEmbeddingModel } from "../test/fixtures/tiny-embedding-model.ts";

const args = process.argv.slice(2);
const dir = args.find((a) => !a.startsWith("--"));
if (!dir) {
  console.error("usage: bun scripts/make-test-embedding-model.ts DIR [--dim N] [--int8]");
  process.exit(2);
}
const dimIndex = args.indexOf("--dim");
const dimension = dimIndex >= 0 ? Number(args[dimIndex + 1]) : 64;
if (!Number.isInteger(dimension) || dimension < 8 || dimension % 8 !== 0) {
  console.error("--dim must be a multiple of 8 (binary-quantized vec0 column)");
  process.exit(2);
}
const model = writeTinyEmbeddingModel(resolve(dir), {
  dimension,
  quantized: args.includes("--int8"),
});
console.log(
  `wrote ${model.name} (${model.dimension} dims, ${model.vocabSize} tokens) to ${model.dir}`,
);
