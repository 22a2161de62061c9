/**
 * Runs one dreaming pass on a home's database and workspace (child process for tests
 * that limit the file size with `ulimit -f`, like a full SD card). Prints the error
 * code of a failure and exits 3 without closing the store (closing would checkpoint).
 */
import { join } from "node:path";
import { dream } from "../../src/memory/dreaming.ts";
import { Store } from "../../src/store/index.ts";

const home = process.argv[2] as string;
const store = Store.open({ path: join(home, "clawbox.db") });
try {
  const report = dream(store.db, join(home, "workspace"), {
    minScore: 0,
    minRecallCount: 1,
    minUniqueQueries: 1,
  });
  console.log(`promoted ${report.promotedLines.length}`);
  store.close();
} catch (error) {
  console.log(`failed ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
  process.exit(3);
}
