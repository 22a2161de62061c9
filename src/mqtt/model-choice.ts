/**
 * Choosing the model over MQTT (Home Assistant's model select). Anyone on the broker can
 * publish there, so unless `mqtt:home-assistant` is an owner only a local model may be
 * chosen: a stranger must never send the owner's next turn (with MEMORY.md and USER.md
 * in its prompt) to a cloud provider.
 */
import type { Agent } from "../agent/index.ts";
import type { AgentConfig, ModelsConfig } from "../config/index.ts";
import { toClawboxError } from "../errors/index.ts";
import { isOwnerSender } from "../sessions/index.ts";
import type { Logger } from "../system/index.ts";
import { MQTT_SENDER_ID } from "./mqtt-turns.ts";

export interface ModelChoiceDeps {
  /** Read on each choice (owners and models can change while the bridge runs). */
  config: { models: Pick<ModelsConfig, "providers">; agent: Pick<AgentConfig, "owners"> };
  agent: Pick<Agent, "selectModel">;
  /** The model ids the select offers. */
  modelIds: string[];
  logger: Logger;
}

/** Makes `id` the primary model; returns why not, in words for Home Assistant, when refused. */
export function chooseModelOverMqtt(id: string, deps: ModelChoiceDeps): string | undefined {
  const { config, modelIds, logger } = deps;
  const provider = Object.hasOwn(config.models.providers, id)
    ? config.models.providers[id]
    : undefined;
  if (
    provider &&
    provider.kind !== "local" &&
    !isOwnerSender(config.agent.owners, MQTT_SENDER_ID)
  ) {
    const local = modelIds.filter((m) => config.models.providers[m]?.kind === "local");
    logger.warn("MQTT model selection refused: cloud model, sender not an owner", { model: id });
    return `Only a local model can be chosen over MQTT (${local.join(", ") || "none configured"}); "${id.slice(0, 80)}" is a cloud model. Add "${MQTT_SENDER_ID}" to agent.owners to allow it.`;
  }
  try {
    deps.agent.selectModel(id);
    logger.info(`model selected over MQTT: ${id}`);
    return undefined;
  } catch (error) {
    logger.warn("MQTT model selection rejected", { error: toClawboxError(error).message });
    return `There is no model named "${id.slice(0, 80)}". Choose one of: ${modelIds.join(", ")}.`;
  }
}
