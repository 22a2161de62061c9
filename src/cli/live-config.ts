/**
 * The settings a running `clawbox run` takes from its edited config file without a
 * restart, whoever edited it (the console's set-up pages, `clawbox pairing approve` or
 * `clawbox models pull` in another shell, an editor over SSH): the model chain, the
 * owners (`agent.owners`), the channels, the MQTT bridge and Home Assistant's MCP link
 * (`homeAssistant`: reconnected with the new address or token). The runtime's config object
 * is the one every area reads, so the owners and the channel and MQTT sections are
 * replaced in it in place; a channel whose section changed is restarted, the MQTT bridge
 * is rebuilt when its section changed. New secret values are handed to the logger before
 * anything can log them. Reloads run one at a time. Other sections need a restart.
 */
import type { ChannelService } from "../channels/index.ts";
import { type ClawboxConfig, loadConfig, watchConfigFile } from "../config/index.ts";
import { toClawboxError } from "../errors/index.ts";
import type { MqttBridge } from "../mqtt/index.ts";
import { collectSecrets, type Logger } from "../system/index.ts";
import type { CliContext } from "./cli-context.ts";
import type { Runtime } from "./start-runtime.ts";

export interface LiveConfigDeps {
  ctx: Pick<CliContext, "env" | "hideSecrets">;
  configFile: string;
  runtime: Pick<Runtime, "config" | "agent">;
  logger: Logger;
  /** Imports the channels area and starts the enabled channels (after READY). */
  startChannels(): Promise<ChannelService>;
  /** Imports the MQTT area and starts the bridge (after READY). */
  startMqtt(): Promise<MqttBridge>;
}

/** What a reload applied, in words for the console and the log. */
export interface ReloadOutcome {
  applied: string[];
}

export interface LiveConfig {
  /** Starts the channels and the bridge the config enables (after READY). */
  startServices(): Promise<void>;
  /** Re-reads the config file and applies what changed. Throws CONFIG_* when it does not load. */
  reload(): Promise<ReloadOutcome>;
  /** Polls the file and reloads on a change; returns the stop function. */
  watch(): () => void;
  channels(): ChannelService | undefined;
  mqtt(): MqttBridge | undefined;
  close(): Promise<void>;
}

const json = (value: unknown) => JSON.stringify(value ?? null);

const anyChannelEnabled = (config: ClawboxConfig) => {
  const { qq, wecom } = config.channels;
  return Boolean(qq?.enabled || wecom?.app?.enabled || wecom?.bot?.enabled);
};

export function createLiveConfig(deps: LiveConfigDeps): LiveConfig {
  const { config } = deps.runtime;
  const log = deps.logger;
  let channels: ChannelService | undefined;
  let bridge: MqttBridge | undefined;
  let closed = false;
  /** The applied sections, as JSON. */
  const applied = {
    models: json(config.models),
    owners: json(config.agent.owners),
    channels: json(config.channels),
    mqtt: json(config.mqtt),
    homeAssistant: json(config.homeAssistant),
  };
  let queue: Promise<unknown> = Promise.resolve();

  const apply = async (next: ClawboxConfig): Promise<ReloadOutcome> => {
    const done: string[] = [];
    if (closed) return { applied: done };
    deps.ctx.hideSecrets(collectSecrets(next));
    if (json(next.models) !== applied.models) {
      applied.models = json(next.models);
      deps.runtime.agent.reloadModels(next.models);
      done.push("models");
    }
    if (json(next.agent.owners) !== applied.owners) {
      applied.owners = json(next.agent.owners);
      // A new array (never changed in place: the schema's default list is shared).
      config.agent.owners = [...next.agent.owners];
      log.info("owners changed", { owners: config.agent.owners.length });
      done.push("owners");
    }
    if (json(next.channels) !== applied.channels) {
      applied.channels = json(next.channels);
      config.channels = next.channels;
      if (channels) await channels.reload();
      else if (anyChannelEnabled(config)) channels = await deps.startChannels();
      done.push("channels");
    }
    if (json(next.mqtt) !== applied.mqtt) {
      applied.mqtt = json(next.mqtt);
      config.mqtt = next.mqtt;
      const old = bridge;
      bridge = undefined;
      await old?.close().catch(() => undefined);
      if (config.mqtt.enabled) bridge = await deps.startMqtt();
      done.push("mqtt");
    }
    if (json(next.homeAssistant) !== applied.homeAssistant) {
      applied.homeAssistant = json(next.homeAssistant);
      config.homeAssistant = next.homeAssistant;
      deps.runtime.agent.reloadHomeAssistant(next.homeAssistant);
      done.push("homeAssistant");
    }
    if (done.length > 0) log.info("config change applied", { applied: done });
    return { applied: done };
  };

  /** One at a time; `loaded` when the caller has just read the file. */
  const reload = (loaded?: ClawboxConfig): Promise<ReloadOutcome> => {
    const run = queue.then(() =>
      apply(loaded ?? loadConfig({ file: deps.configFile, env: deps.ctx.env }).config),
    );
    queue = run.catch(() => undefined);
    return run;
  };

  return {
    async startServices() {
      if (anyChannelEnabled(config)) channels = await deps.startChannels();
      if (config.mqtt.enabled) bridge = await deps.startMqtt();
    },
    reload: () => reload(),
    watch: () =>
      watchConfigFile({
        file: deps.configFile,
        env: deps.ctx.env,
        onChange: (loaded) => {
          reload(loaded).catch((error: unknown) =>
            log.warn("config change could not be applied", {
              error: toClawboxError(error).message,
            }),
          );
        },
        onInvalid: (message) =>
          log.warn("config file changed but does not validate; running settings kept", {
            error: message,
          }),
      }),
    channels: () => channels,
    mqtt: () => bridge,
    async close() {
      closed = true;
      await queue;
      await bridge?.close();
      await channels?.close();
    },
  };
}
