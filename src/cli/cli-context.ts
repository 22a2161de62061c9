/**
 * What every CLI command gets: the resolved home, config loading on demand (a command
 * like `config check` must run even when the config is broken), the store, and output
 * streams (injectable for tests).
 */
import { formatIssue, type LoadedConfig, loadConfig } from "../config/index.ts";
import { createSessionResolver, type SessionResolver } from "../sessions/index.ts";
import { Store } from "../store/index.ts";
import {
  collectSecrets,
  createLogger,
  type HomePaths,
  homePaths,
  type Logger,
  LogRing,
} from "../system/index.ts";

export interface Output {
  write(text: string): void;
  /** The stream is a terminal (a person reads it, not the journal or a file). */
  isTerminal?: boolean;
}

export interface CliContext {
  home: string;
  /** Paths from the home alone (before the config may move the workspace). */
  paths: HomePaths;
  stdout: Output;
  stderr: Output;
  env: Record<string, string | undefined>;
  /** Loads (and caches) the config; throws CONFIG_* errors. */
  config(): LoadedConfig;
  /** Paths with the configured workspace applied. */
  resolvedPaths(): HomePaths;
  /** Opens (and caches) the store; closed by the CLI runner at exit. */
  store(): Store;
  logger(): Logger;
  /** The logger's recent lines (redacted), for the console's Logs page. */
  logs: LogRing;
  /**
   * Secret values of a changed config (a secret set from the console) for the logger to
   * hide from now on, besides those of the config it started with.
   */
  hideSecrets(values: readonly string[]): void;
  /** The session resolver built once from `config.agent` (names, keys, who owns a session). */
  sessions(): SessionResolver;
  /** Set by long-running commands that must not be closed at return. */
  keepAlive?: Promise<number>;
}

export function createCliContext(
  home: string,
  io: { stdout: Output; stderr: Output; env: Record<string, string | undefined> },
): CliContext & { close(): void } {
  const paths = homePaths(home, undefined, io.env);
  let loaded: LoadedConfig | undefined;
  let store: Store | undefined;
  let logger: Logger | undefined;
  /** Read by the logger on every line; grows when the config gains secrets. */
  const secrets: string[] = [];
  let sessions: SessionResolver | undefined;
  const ctx: CliContext & { close(): void } = {
    home,
    paths,
    stdout: io.stdout,
    stderr: io.stderr,
    env: io.env,
    config() {
      if (!loaded) {
        loaded = loadConfig({
          file: paths.configFile,
          env: io.env,
          required: Boolean(io.env.CLAWBOX_CONFIG),
        });
        for (const warning of loaded.warnings) {
          io.stderr.write(`warning: ${formatIssue(warning)}\n`);
        }
      }
      return loaded;
    },
    resolvedPaths() {
      return homePaths(home, ctx.config().config.workspace, io.env);
    },
    store() {
      if (!store) store = Store.open({ path: paths.database });
      return store;
    },
    logs: new LogRing(),
    hideSecrets(values) {
      for (const value of values) if (!secrets.includes(value)) secrets.push(value);
      // Longest first, so a secret that contains another is hidden whole.
      secrets.sort((a, b) => b.length - a.length);
    },
    logger() {
      if (!logger) {
        let level: "debug" | "info" | "warn" | "error" = "info";
        try {
          level = ctx.config().config.log.level;
          ctx.hideSecrets(collectSecrets(ctx.config().config));
        } catch {
          // A broken config is reported by the command itself; log at info meanwhile.
        }
        logger = createLogger({
          level,
          secrets,
          write: (line) => io.stderr.write(`${line}\n`),
          tap: (lineLevel, line) => ctx.logs.push(lineLevel, line),
        });
      }
      return logger;
    },
    sessions() {
      sessions ??= createSessionResolver(ctx.config().config.agent);
      return sessions;
    },
    close() {
      try {
        store?.close();
      } catch {
        // A damaged database may refuse the final checkpoint; its error was already reported.
      }
      store = undefined;
    },
  };
  return ctx;
}
