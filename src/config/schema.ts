/**
 * The whole configuration file. Each area owns its section in `sections/`; this file
 * only assembles them, so the schema is also the single source of the TypeScript type.
 */
import { z } from "../schema/index.ts";
import { agentSection } from "./sections/agent.ts";
import { backupSection } from "./sections/backup.ts";
import { channelsSection } from "./sections/channels.ts";
import { contextSection } from "./sections/context.ts";
import { homeAssistantSection } from "./sections/home-assistant.ts";
import { memorySection } from "./sections/memory.ts";
import { modelsSection } from "./sections/models.ts";
import { mqttSection } from "./sections/mqtt.ts";
import { cronSection, followupsSection, heartbeatSection } from "./sections/scheduler.ts";
import { serverSection } from "./sections/server.ts";
import { logSection } from "./sections/system.ts";
import { toolsSection } from "./sections/tools.ts";
import { wyomingSection } from "./sections/wyoming.ts";

export const configSchema = z.object({
  /** Workspace folder; default `<home>/workspace`. */
  workspace: z.optional(z.string().check(z.minLength(1))),
  server: serverSection,
  models: modelsSection,
  agent: agentSection,
  tools: toolsSection,
  context: contextSection,
  memory: memorySection,
  channels: channelsSection,
  log: logSection,
  mqtt: mqttSection,
  homeAssistant: homeAssistantSection,
  wyoming: wyomingSection,
  heartbeat: heartbeatSection,
  cron: cronSection,
  followups: followupsSection,
  backup: backupSection,
});

export type ClawboxConfig = z.infer<typeof configSchema>;
