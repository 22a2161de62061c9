/**
 * `clawbox run`: the long-running service. Opens the store, seeds the workspace, starts
 * the HTTP server, then tells systemd READY=1 and pings the watchdog. SIGTERM/SIGINT
 * drain running turns, stop the server and close the database before exit 0.
 * Heavy parts (llama.cpp, onnxruntime) load lazily on first use, not here.
 */
import type { ChannelService } from "../../channels/index.ts";
import { isLoopbackHost } from "../../config/index.ts";
import {
  consoleLinkBase,
  ensureLoginSecret,
  issueTicket,
  loginLink,
  TicketVerifier,
} from "../../console/index.ts";
import { ClawboxError, errorMessage } from "../../errors/index.ts";
import { noModelNotice } from "../../models/index.ts";
import { createApp, type Listening, listenHttp } from "../../server/index.ts";
import { makeNonDumpable, useServiceJitPolicy } from "../../system/index.ts";
import { startAutoBackups } from "../auto-backups.ts";
import type { Command } from "../command.ts";
import { EXIT } from "../exit-codes.ts";
import { handleStopSignals } from "../graceful-stop.ts";
import { createLiveConfig } from "../live-config.ts";
import { parseWith } from "../parse-args.ts";
import { type Runtime, startRuntime } from "../start-runtime.ts";
import { VERSION } from "../version.ts";

async function startMqtt(runtime: Runtime, home: string) {
  const { createMqttBridge, statusFilePath } = await import("../../mqtt/index.ts");
  const bridge = createMqttBridge({
    config: runtime.config,
    agent: runtime.agent,
    sessions: runtime.sessions,
    logger: runtime.logger.child("mqtt"),
    version: VERSION,
    statusFile: statusFilePath(home),
    db: runtime.store.db,
  });
  void bridge.start();
  return bridge;
}

/** Started by systemd: its journal keeps stdout (`INVOCATION_ID`, `JOURNAL_STREAM`). */
function underSystemd(env: Record<string, string | undefined>): boolean {
  return Boolean(env.INVOCATION_ID || env.JOURNAL_STREAM);
}

/**
 * Imported only when `wyoming.enabled`, after READY (src/wyoming), then announced over
 * mDNS when `wyoming.zeroconf` (default: beyond loopback). A port in use is logged, not
 * fatal: the rest of the box keeps running.
 */
async function startWyoming(runtime: Runtime, home: string) {
  const config = runtime.config.wyoming;
  if (!config.enabled) return undefined;
  const log = runtime.logger.child("wyoming");
  try {
    const {
      announceWyoming,
      startWyomingServer,
      voiceAgentName,
      wyomingStatusFile,
      zeroconfWanted,
    } = await import("../../wyoming/index.ts");
    const name = voiceAgentName();
    const server = startWyomingServer({
      config,
      agent: runtime.agent,
      sessions: runtime.sessions,
      logger: log,
      version: VERSION,
      name,
      statusFile: wyomingStatusFile(home),
    });
    log.info("listening for Home Assistant (Wyoming)", {
      address: `${config.host}:${server.port}`,
    });
    const announcement = zeroconfWanted(config)
      ? await announceWyoming({ name, host: config.host, port: server.port, logger: log })
      : undefined;
    if (announcement) {
      server.setZeroconf(announcement.state);
      log.info("mDNS: _wyoming._tcp.local.", { name, state: announcement.state });
    }
    return {
      stopIntake: () => server.stopListening(),
      async close() {
        await announcement?.close();
        await server.close();
      },
    };
  } catch (error) {
    log.error("the Wyoming server did not start", { error: errorMessage(error) });
    return undefined;
  }
}

/** How long a stop waits for responses still being written after the drain. */
const RESPONSE_FLUSH_MS = 2000;

/** `http://host:port`, with an IPv6 address in brackets. */
export function listenUrl(host: string, port: number): string {
  const bare = host.replace(/^\[(.*)\]$/, "$1");
  return `http://${bare.includes(":") ? `[${bare}]` : bare}:${port}`;
}

/** Imported only when a channel is enabled, after READY; connecting runs in the background. */
async function startChannels(runtime: Runtime): Promise<ChannelService> {
  const { createChannelService } = await import("../../channels/index.ts");
  const primary = runtime.config.models.providers[runtime.config.models.primary ?? ""];
  const service = createChannelService({
    db: runtime.store.db,
    config: runtime.config,
    agent: runtime.agent,
    sessions: runtime.sessions,
    logger: runtime.logger.child("channels"),
    workspace: runtime.paths.workspace,
    vision: primary !== undefined && primary.kind !== "local",
  });
  void service.start();
  return service;
}

const ARGS = {
  options: { port: { type: "string" }, host: { type: "string" } },
  positionals: false,
} as const;

export const runCommand: Command = {
  name: "run",
  args: ARGS,
  usage: [
    "Usage: clawbox run [--port N] [--host ADDR]",
    "  Starts clawbox in the foreground. Stops cleanly on SIGTERM/SIGINT.",
    "  --port N      HTTP port (default from config, 18790)",
    "  --host ADDR   bind address (default 127.0.0.1; other addresses need server.token)",
  ].join("\n"),
  async run(ctx, args) {
    const { values } = parseWith(args, ARGS);
    const startedAt = Date.now();
    // First: a command the service runs (exec, MCP, camera helpers) must not read its
    // environment or memory through /proc/<pid> (docs/SECURITY.md, "Secrets").
    const dumpable = makeNonDumpable();
    // The flags are checked before anything starts (database, workspace, memory).
    const { config } = ctx.config();
    const host = (values.host ?? config.server.host).replace(/^\[(.*)\]$/, "$1");
    const port = values.port ? Number(values.port) : config.server.port;
    if (!Number.isInteger(port) || port < 0 || port > 65535) {
      throw new ClawboxError("CLI_USAGE", `--port: not a port number: ${values.port}`);
    }
    if (!isLoopbackHost(host) && !config.server.token) {
      // The config itself was checked at load; this is the --host flag's doing.
      throw new ClawboxError(
        "CLI_USAGE",
        `--host ${host}: server.token is required when listening beyond loopback`,
        {
          hint: "set a token (clawbox config token prints a random one), or bind to 127.0.0.1",
        },
      );
    }
    const runtime = await startRuntime(ctx, { onDamage: "report", trimWhenIdle: true });
    const log = runtime.logger.child("run");
    if (!dumpable.ok)
      log.warn(
        "could not make the service non-dumpable; its children can read /proc/<pid>/environ",
        {
          reason: dumpable.reason,
        },
      );
    // The console's login secret (created at the first start) and the one-time links it signs.
    const login = ensureLoginSecret(ctx.home);
    if (login.created) log.info("console login secret created", { file: "console-secret" });
    const loginSecrets = [login.secret, ...(config.server.token ? [config.server.token] : [])];
    const tickets = new TicketVerifier(loginSecrets);
    // Channels and the MQTT bridge load after READY (lazy import); until then /health shows
    // no channels and webhooks 404. An edited config file is applied live (live-config.ts).
    const live = createLiveConfig({
      ctx,
      configFile: ctx.paths.configFile,
      runtime,
      logger: log,
      startChannels: () => startChannels(runtime),
      startMqtt: () => startMqtt(runtime, ctx.home),
    });
    const app = createApp({
      backend: runtime.agent,
      version: VERSION,
      startedAt,
      dbHealth: runtime.dbHealth,
      token: config.server.token,
      host,
      allowedHosts: config.server.allowedHosts,
      openaiApi: config.server.openaiApi,
      logger: runtime.logger.child("http"),
      sessions: runtime.sessions,
      channels: {
        status: () => live.channels()?.status() ?? [],
        webhook: (id, request) => live.channels()?.webhook(id, request),
      },
      console: {
        config,
        configFile: ctx.paths.configFile,
        env: ctx.env,
        paths: runtime.paths,
        store: runtime.store,
        memory: runtime.memory,
        agent: runtime.agent,
        sessions: runtime.sessions,
        logger: runtime.logger.child("console"),
        version: VERSION,
        startedAt,
        login: { secrets: loginSecrets, tickets },
        logs: ctx.logs,
        scheduler: runtime.scheduler,
        reloadConfig: () => live.reload(),
        channels: () => live.channels(),
        statusSources: {
          channels: async () =>
            live
              .channels()
              ?.status()
              .filter((s) => s.enabled)
              .map((s) => ({ name: s.channel, state: s.state, detail: s.reason })),
          homeAssistant: async () => {
            const status = runtime.agent.homeAssistantStatus();
            return status.state === "off"
              ? undefined
              : [{ name: status.url ?? "", state: status.state, detail: status.reason }];
          },
          mqtt: async () => {
            const status = live.mqtt()?.status();
            return (
              status && [{ name: status.broker, state: status.state, detail: status.lastError }]
            );
          },
        },
      },
    });
    // On loopback, both families (127.0.0.1 and ::1); under systemd, clawbox.socket's
    // sockets, which systemd keeps across restarts (src/server/listen.ts).
    let server: Listening;
    try {
      server = await listenHttp({
        host,
        port,
        fetch: app.fetch,
        idleTimeout: 255,
        env: ctx.env,
        home: ctx.home,
      });
    } catch (error) {
      await runtime.close();
      throw error;
    }
    if (server.from === "systemd" && server.port !== config.server.port)
      log.warn("the port comes from clawbox.socket, not server.port", {
        socket: server.port,
        serverPort: config.server.port,
      });
    if (server.absent.length > 0)
      log.info("no loopback twin on this machine (that family is off)", { absent: server.absent });
    // The addresses held, the configured one first (never `localhost`: a browser may send
    // it to either family); the login link names 127.0.0.1 on loopback (consoleLinkBase).
    const [first, ...rest] = server.addresses.map((a) => listenUrl(a, server.port));
    const address = first ?? listenUrl(server.host, server.port);
    const also = rest;
    // One line, on stdout (the journal gets it once).
    ctx.stdout.write(
      `clawbox ${VERSION} listening on ${address}${also.length > 0 ? ` (also ${also.join(", ")})` : ""}\n`,
    );
    runtime.notifier.ready(`listening on ${address}`);
    // Hot code stays interpreted (src/system/jit-policy.ts). The compiled binary started
    // that way; from source, the policy takes effect here.
    useServiceJitPolicy();
    // After READY: a one-time login link, only to a terminal. Under systemd (or any
    // stdout that is not a terminal) it would sit in the journal or a log file as an
    // owner session for whoever reads it first; there, say how to get one instead.
    if (ctx.stdout.isTerminal === true && !underSystemd(ctx.env)) {
      const link = loginLink(consoleLinkBase(server.host, server.port), issueTicket(login.secret));
      ctx.stdout.write(`console: open ${link}\n`);
    } else {
      ctx.stdout.write(
        "console: for a one-time login link run `clawbox console url` as the service's user\n",
      );
    }
    const notice = noModelNotice(config.models.providers[config.models.primary]);
    if (notice) ctx.stdout.write(`${notice}\n`);
    // Reminders for Home Assistant (an owner) go out as MQTT events once the bridge runs.
    runtime.scheduler.start(runtime.agent, {
      mqtt: { send: async (_target, text) => live.mqtt()?.notify(text) },
    });
    // After READY: the first index pass, the file watcher and dreaming, in the background.
    void runtime.memory?.start();
    const stopWatchdog = runtime.notifier.startWatchdog();
    await live.startServices();
    // After READY: Home Assistant's voice rooms (lazy import; nothing when disabled).
    const wyoming = await startWyoming(runtime, ctx.home);
    // After READY: edits of the config file (models, owners, channels, MQTT) apply live.
    const stopConfigWatch = live.watch();
    // After READY: automatic backups to backup.dir (docs/BACKUP.md), when configured.
    const stopBackups = startAutoBackups({
      config: runtime.config,
      paths: runtime.paths,
      version: VERSION,
      logger: runtime.logger.child("backup"),
    });

    let serverStopped: Promise<void> = Promise.resolve();
    ctx.keepAlive = handleStopSignals({
      logger: log,
      drainMs: config.server.drainMs,
      stopIntake: () => {
        runtime.notifier.stopping();
        stopWatchdog();
        stopConfigWatch();
        stopBackups();
        // No new connections; open ones (a running reply) finish or are closed below.
        serverStopped = server.stop(false);
        wyoming?.stopIntake();
      },
      idle: () => runtime.agent.idle(),
      close: async () => {
        await wyoming?.close();
        await live.close();
        await runtime.close();
        // A reply that finished in the drain is still being written to its client: let
        // those responses end (briefly), then close what is left (a console page's stream).
        await Promise.race([serverStopped, new Promise((r) => setTimeout(r, RESPONSE_FLUSH_MS))]);
        await server.stop(true);
      },
    });
    return EXIT.ok;
  },
};
