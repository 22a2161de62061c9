/**
 * Writes the tiny random-weights llama GGUF used by tests to a file, for trying it by
 * hand: `node_modules/.bin/bun scripts/make-tiny-gguf.ts OUT.gguf [--seed N] [--no-byte-tokens]`.
 */
import { writeTinyGguf } from "../test/fixtures/tiny-gguf.ts";

const args = process.argv.slice(2);
const out = args.find((arg) => !arg.startsWith("--"));
const seedAt = args.indexOf("--seed");
const seed = seedAt >= 0 ? Number(args[seedAt + 1]) : undefined;
if (!out || (seed !== undefined && !Number.isInteger(seed))) {
  console.error("usage: bun scripts/make-tiny-gguf.ts OUT.gguf [--seed N] [--no-byte-tokens]");
  process.exit(2);
}
const info = await writeTinyGguf(out, { seed, byteTokens: !args.includes("--no-byte-tokens") });
console.log(
  `${info.path}: ${info.sizeBytes} bytes, vocab ${info.vocabSize}, context ${info.contextLength}, ` +
    `${info.blockCount} layers, n_embd ${info.embeddingLength}`,
);
