/**
 * Child process for crash tests: appends user messages to a session as fast as it can,
 * printing "ack <entryId>" after each append returns (i.e. after it is durable).
 * Usage: bun append-until-killed.ts DB_PATH SESSION_KEY
 */
import { Store } from "../../src/store/index.ts";

const [dbPath, sessionKey] = process.argv.slice(2);
if (!dbPath || !sessionKey) throw new Error("usage: append-until-killed.ts DB_PATH SESSION_KEY");
const store = Store.open({ path: dbPath });
const session = store.sessions.getOrCreate({ sessionKey });
for (let i = 0; ; i++) {
  const entry = store.transcript.append(session.sessionId, {
    type: "message",
    message: {
      role: "user",
      content: `message ${i} ${"x".repeat(i % 500)}`,
      timestamp: Date.now(),
    },
  });
  process.stdout.write(`ack ${entry.id}\n`);
  if (i % 50 === 0) await Bun.sleep(0);
}
