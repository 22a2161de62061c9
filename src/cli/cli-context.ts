/**
 * What every CLI command gets: the resolved home, config loading on demand (a command
 * like `config check` must run even when the config is broken), the store, and output
 * streams (injectable for tests).
 */
import { type LoadedConfig, loadConfig } from "../config/index.ts";
import { Store } from "../store/index.ts";
import {
  collectSecrets,
  createLogger,
  type HomePaths,
  homePaths,
  type Logger,
} from "../system/index.ts";

export interface Output {
  write(text: string): void;
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
          io.stderr.write(`warning: ${warning.file}: ${warning.path}: ${warning.message}\n`);
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
    logger() {
      if (!logger) {
        let level: "debug" | "info" | "warn" | "error" = "info";
        let secrets: string[] = [];
        try {
          level = ctx.config().config.log.level;
          secrets = collectSecrets(ctx.config().config);
        } catch {
          // A broken config is reported by the command itself; log at info meanwhile.
        }
        logger = createLogger({
          level,
          secrets,
          write: (line) => io.stderr.write(`${line}\n`),
        });
      }
      return logger;
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
