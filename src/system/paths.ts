/**
 * The box's own data folders. Everything mutable lives under one home folder
 * (default `~/.clawbox`, `/var/lib/clawbox` for the packaged service).
 */
import { homedir } from "node:os";
import { isAbsolute, join, resolve } from "node:path";

export interface HomePaths {
  home: string;
  configFile: string;
  database: string;
  workspace: string;
  modelsDir: string;
  /** Saved llama.cpp KV-cache states of the local model (prefixes, sessions). */
  kvCacheDir: string;
  skillsDir: string;
}

function expandTilde(path: string): string {
  if (path === "~") return homedir();
  if (path.startsWith("~/")) return join(homedir(), path.slice(2));
  return path;
}

/** Home from the `--home` flag, else `CLAWBOX_HOME`, else `~/.clawbox`. */
export function resolveHome(flag: string | undefined, env = process.env): string {
  const chosen = flag ?? env.CLAWBOX_HOME ?? "~/.clawbox";
  return resolve(expandTilde(chosen));
}

/** Paths derived from the home folder; `CLAWBOX_CONFIG` may point the config elsewhere. */
export function homePaths(home: string, workspace?: string, env = process.env): HomePaths {
  const configFile = env.CLAWBOX_CONFIG
    ? resolve(expandTilde(env.CLAWBOX_CONFIG))
    : join(home, "clawbox.json");
  const ws = workspace ? expandTilde(workspace) : join(home, "workspace");
  return {
    home,
    configFile,
    database: join(home, "clawbox.db"),
    workspace: isAbsolute(ws) ? ws : resolve(home, ws),
    modelsDir: join(home, "models"),
    kvCacheDir: join(home, "cache", "kv"),
    skillsDir: join(home, "skills"),
  };
}
