/**
 * Starts the llama.cpp runtime once, as a turn would, in its own process (for the test
 * that presses Ctrl-C while node-llama-cpp tests its binary in a child process). A SIGINT
 * handler keeps this process alive, as `clawbox run` does while it drains. Prints
 * "started" or "failed: <message>"; log lines go to stderr.
 */
import { loadLlama } from "../../src/providers/local/llama-runtime.ts";
import { createLogger } from "../../src/system/index.ts";

process.on("SIGINT", () => process.stderr.write("SIGINT received\n"));
const logger = createLogger({ level: "debug", write: (line) => process.stderr.write(`${line}\n`) });
try {
  await loadLlama(1, logger);
  process.stdout.write("started\n");
} catch (error) {
  process.stdout.write(`failed: ${error instanceof Error ? error.message : String(error)}\n`);
}
process.exit(0);
