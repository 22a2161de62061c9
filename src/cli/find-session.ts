/**
 * `--session X` and `sessions export|delete X`: X is a session id, a full key, or a
 * short name, which every command resolves the way `clawbox chat --session` does
 * (`kitchen` → `agent:<id>:cli:direct:kitchen`, the owner's named session). A name
 * means that one key in every command (so `chat` and `export` never disagree); when it
 * finds nothing, the error names the key it tried and the full keys of sessions with the
 * same name on other surfaces (`"session":"kitchen"` over HTTP is the web's kitchen).
 */
import { ClawboxError, isClawboxError } from "../errors/index.ts";
import type { Surface } from "../sessions/index.ts";
import type { SessionRow } from "../store/index.ts";
import type { CliContext } from "./cli-context.ts";

/** The key `text` names on the CLI (a name resolved, a key checked); CLI_USAGE when malformed. */
export function sessionKeyArg(ctx: CliContext, flag: string, text: string): string {
  try {
    return ctx.sessions().resolve(text, "cli");
  } catch (error) {
    if (isClawboxError(error, "SESSION_KEY_INVALID"))
      throw new ClawboxError("CLI_USAGE", `${flag}: ${error.message}`);
    throw error;
  }
}

/** The session `text` names (id, key or name), or undefined. */
export function findSession(ctx: CliContext, text: string): SessionRow | undefined {
  const store = ctx.store();
  const byId = store.sessions.get(text);
  if (byId) return byId;
  let key: string;
  try {
    key = ctx.sessions().resolve(text, "cli");
  } catch (error) {
    if (isClawboxError(error, "SESSION_KEY_INVALID")) return undefined;
    throw error;
  }
  return store.sessions.byKey(key);
}

/** Like `findSession`, but SESSION_NOT_FOUND (naming what was looked for) when there is none. */
export function requireSession(ctx: CliContext, text: string): SessionRow {
  const session = findSession(ctx, text);
  if (session) return session;
  let tried = "";
  let elsewhere: string[] = [];
  try {
    const key = ctx.sessions().resolve(text, "cli");
    if (key !== text) {
      tried = ` (tried the key ${key})`;
      elsewhere = sameNameElsewhere(ctx, text, key);
    }
  } catch {
    // Not a name or a key: the id was all there was to try.
  }
  throw new ClawboxError("SESSION_NOT_FOUND", `no session with id, key or name ${text}${tried}`, {
    hint:
      elsewhere.length > 0
        ? `a name on the command line means the CLI's session; ${elsewhere.length === 1 ? "this one has" : "these have"} that name elsewhere, give the full key: ${elsewhere.join(", ")}`
        : 'list sessions with "clawbox sessions list"',
  });
}

/** Surfaces whose names live in a namespace of their own (the console's are the CLI's). */
const OTHER_SURFACES: readonly Surface[] = ["web", "mqtt", "openai-api"];

function sameNameElsewhere(ctx: CliContext, name: string, cliKey: string): string[] {
  const store = ctx.store();
  const keys = new Set(OTHER_SURFACES.map((surface) => ctx.sessions().resolve(name, surface)));
  keys.delete(cliKey);
  return [...keys].filter((key) => store.sessions.byKey(key) !== undefined);
}
