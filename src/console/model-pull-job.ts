/**
 * The console's model download: one at a time, in the background of the server, with
 * progress the Models page polls. Uses the same resumable, verified `pullModel` as
 * `clawbox models pull`, with the same retries (network errors with backoff, a clock that
 * is behind until NTP fixes it; the page shows why it waits); a finished chat model
 * becomes the local model when none was set. A model without a published sha256 is
 * pulled only when the person chose so (the CLI's `--allow-unverified`), and the finished
 * message names the sha256 it computed.
 */
import { basename } from "node:path";
import { type ClawboxError, toClawboxError } from "../errors/index.ts";
import {
  activateIfUnset,
  type ManifestModel,
  pullModel,
  readInstalledChatModel,
} from "../models/index.ts";
import type { ConsoleDeps } from "./console-deps.ts";
import { applyModelSettings } from "./model-settings.ts";

export interface PullState {
  name: string | null;
  state: "idle" | "running" | "done" | "error";
  received: number;
  total: number | null;
  message: string | null;
}

export class ModelPullJob {
  private current: PullState = {
    name: null,
    state: "idle",
    received: 0,
    total: null,
    message: null,
  };

  constructor(
    private readonly deps: ConsoleDeps,
    /** First retry delay (default 1 s, doubling to 30 s). */
    private readonly retryInitialMs?: number,
  ) {}

  state(): PullState {
    return { ...this.current };
  }

  /** Forgets a finished pull's outcome (after **Use**, its message is stale). */
  dismiss(): void {
    if (this.current.state === "running") return;
    this.current = { name: null, state: "idle", received: 0, total: null, message: null };
  }

  /**
   * Starts pulling `model`; false when another pull is running. `allowUnverified` accepts
   * files the manifest publishes no sha256 for (the person chose it on the page); their
   * computed sha256 is in the finished message.
   */
  start(model: ManifestModel, options: { allowUnverified?: boolean } = {}): boolean {
    if (this.current.state === "running") return false;
    const total = model.files.reduce((sum, f) => sum + (f.size ?? 0), 0) || null;
    this.current = { name: model.name, state: "running", received: 0, total, message: null };
    void this.run(model, options.allowUnverified === true);
    return true;
  }

  private async run(model: ManifestModel, allowUnverified: boolean): Promise<void> {
    const done = new Map<string, number>();
    try {
      const { mirror } = this.deps.config.models;
      const result = await pullModel(model, {
        modelsDir: this.deps.paths.modelsDir,
        allowUnverified,
        ...(mirror ? { mirror } : {}),
        ...(this.deps.manifestPath ? { manifestPath: this.deps.manifestPath } : {}),
        onProgress: (p) => {
          done.set(p.file, p.received);
          let received = 0;
          for (const bytes of done.values()) received += bytes;
          this.current.received = received;
          if (this.current.total === null && p.total !== undefined) this.current.total = p.total;
          if (this.current.message?.includes("retrying")) this.current.message = null;
        },
        retry: {
          ...(this.retryInitialMs !== undefined ? { initialMs: this.retryInitialMs } : {}),
          onRetry: ({ error, clock, inMs }) => {
            const why = clock ?? error.message;
            this.current.message = `${why}; retrying in ${Math.max(1, Math.round(inMs / 1000))} s`;
            this.deps.logger.warn("console model pull: retrying", {
              model: model.name,
              error: error.message,
              inMs,
            });
          },
        },
      });
      let message = `${model.name} installed in ${result.dir}`;
      for (const file of result.files.filter((f) => !f.verified))
        message = `${message}; ${basename(file.path)} not verified (no sha256 in the manifest), its sha256 is ${file.sha256}`;
      if (model.kind === "chat") {
        const installed = readInstalledChatModel(result.dir);
        if (installed) {
          const activation = await activateIfUnset(
            this.deps.config.models,
            this.deps.configFile,
            installed.path,
          );
          if (activation.activated) applyModelSettings(this.deps);
          message = `${message}; ${activation.message}`;
        }
      }
      const total = this.current.total ?? this.current.received;
      this.current = { ...this.current, state: "done", received: total, total, message };
    } catch (error) {
      const failure = toClawboxError(error);
      this.deps.logger.warn("console model pull failed", {
        model: model.name,
        error: failure.message,
      });
      this.current = { ...this.current, state: "error", message: consoleWording(failure) };
    }
  }
}

/**
 * An error as the Models page says it: the CLI's hint ("run the same command again")
 * becomes what to do on the page; a network failure resumes when Pull is pressed again.
 */
export function consoleWording(failure: ClawboxError): string {
  const bare =
    failure.hint && failure.message.endsWith(` (${failure.hint})`)
      ? failure.message.slice(0, -(failure.hint.length + 3))
      : failure.message;
  // The box has no route to the download site (offline, no DNS): say so and name the
  // two ways that need none, instead of the resolver's "getaddrinfo ENOTFOUND".
  const unreachable = /(?:ENOTFOUND|EAI_AGAIN|ENETUNREACH|EHOSTUNREACH) ?([\w.-]*)/.exec(bare);
  if (unreachable)
    return `The box cannot reach the download site${unreachable[1] ? ` (${unreachable[1]})` : ""}: check its network and press Pull again (the download resumes). Or set models.mirror to a server on your network that has the files, or put the .gguf file on the box and run clawbox models use /path/to/file.gguf there.`;
  if (failure.code === "PROVIDER_NETWORK")
    return `${bare}. Press Pull again: the download resumes where it stopped.`;
  return failure.hint && !/command/.test(failure.hint) ? `${bare} (${failure.hint})` : bare;
}
