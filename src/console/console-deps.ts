/**
 * What the console needs from the running box. Types only, so mounting the console at
 * startup loads nothing heavy; the parts are handed over by `clawbox run`.
 */
import type { AgentEvent, ChatRequest, ChatResult } from "../agent/index.ts";
import type { ChannelService } from "../channels/index.ts";
import type { ClawboxConfig, ModelsConfig } from "../config/index.ts";
import type { MemoryService } from "../memory/index.ts";
import type { Scheduler } from "../scheduler/index.ts";
import type { Admission, SessionResolver } from "../sessions/index.ts";
import type { Store } from "../store/index.ts";
import type { HomePaths, Logger, LogRing } from "../system/index.ts";
import type { AgentTool } from "../tools/index.ts";
import type { TicketVerifier } from "./login-ticket.ts";

export interface ConsoleAgent {
  chat(request: ChatRequest): Promise<ChatResult>;
  /** Whether the console's turn may go into that session (it may not into a stranger's). */
  checkSession?(request: ChatRequest): Admission;
  modelState(): Record<string, string>;
  reloadModels(models: ModelsConfig): string[];
  /** Tools besides the base tools (memory, cron, MCP, devices), for the Context page. */
  extraTools(): AgentTool[];
}

/** A status section another area adds (channels, MQTT); undefined = not configured. */
export type StatusSource = () => Promise<
  { name: string; state: string; detail?: string | undefined }[] | undefined
>;

export interface ConsoleDeps {
  config: ClawboxConfig;
  configFile: string;
  env: Record<string, string | undefined>;
  paths: HomePaths;
  store: Store;
  memory: MemoryService | undefined;
  agent: ConsoleAgent;
  /** The runtime's session resolver: the console's default session, names and keys. */
  sessions: SessionResolver;
  logger: Logger;
  version: string;
  startedAt: number;
  /**
   * How a browser logs in (console-auth.ts): the secrets a person may type (the login
   * secret of `<home>/console-secret`, and `server.token` when set) and the checker of
   * one-time links. Made at service start, so a link printed then is valid.
   */
  login: { secrets: string[]; tickets: TicketVerifier };
  /** The service's recent log lines (redacted), for the Logs page. */
  logs?: LogRing;
  /**
   * Re-reads the config file and applies what can change live (models, owners, channels,
   * MQTT); called after a page wrote the file. Throws CONFIG_* when the file does not load.
   */
  reloadConfig?: () => Promise<{ applied: string[] }>;
  /** The running scheduler's reminders and follow-ups (a new reminder is planned at once). */
  scheduler?: Pick<Scheduler, "jobs" | "followups">;
  /** The running channels (undefined until one is enabled). */
  channels?: () => ChannelService | undefined;
  /** Extra status rows (channels, MQTT) when those areas exist. */
  statusSources?: Record<string, StatusSource>;
  /** Model manifest path (default models/manifest.json or $CLAWBOX_MODEL_MANIFEST). */
  manifestPath?: string;
}

export type { AgentEvent };
