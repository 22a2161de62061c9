/** The command table. Add one entry per command file; modules load only when used. */
import type { CommandEntry } from "../command.ts";

export const COMMANDS: readonly CommandEntry[] = [
  {
    name: "run",
    summary: "start the service (HTTP API, channels, schedulers)",
    load: async () => (await import("./run.ts")).runCommand,
  },
  {
    name: "console",
    summary: "print a one-time login link for the web console",
    load: async () => (await import("./console.ts")).consoleCommand,
  },
  {
    name: "chat",
    summary: "chat with the agent (one message with -m, else interactive)",
    load: async () => (await import("./chat.ts")).chatCommand,
  },
  {
    name: "sessions",
    summary: "list, export, import or delete sessions",
    load: async () => (await import("./sessions.ts")).sessionsCommand,
  },
  {
    name: "config",
    summary: "check, show or locate the configuration; make a token",
    load: async () => (await import("./config.ts")).configCommand,
  },
  {
    name: "doctor",
    summary: "check home, config, database, workspace and model files",
    load: async () => (await import("./doctor.ts")).doctorCommand,
  },
  {
    name: "memory",
    summary: "memory index status, re-index, search, dreaming",
    load: async () => (await import("./memory.ts")).memoryCommand,
  },
  {
    name: "context",
    summary: "show what the model sees: bootstrap files, skills, tools, history, budget",
    load: async () => (await import("./context.ts")).contextCommand,
  },
  {
    name: "compact",
    summary: "summarize a session's older turns now",
    load: async () => (await import("./compact.ts")).compactCommand,
  },
  {
    name: "channels",
    summary: "channel state (QQ, WeCom), last event, inbox and outbox counts",
    load: async () => (await import("./channels.ts")).channelsCommand,
  },
  {
    name: "pairing",
    summary: "pairing codes from /pair: list, approve, deny; remove an owner",
    load: async () => (await import("./pairing.ts")).pairingCommand,
  },
  {
    name: "models",
    summary: "list, pull or switch models: chat GGUFs and embedding models",
    load: async () => (await import("./models.ts")).modelsCommand,
  },
  {
    name: "mqtt",
    summary: "Home Assistant bridge: broker, connection state, entities",
    load: async () => (await import("./mqtt.ts")).mqttCommand,
  },
  {
    name: "cron",
    summary: "list, add or remove reminders (cron jobs)",
    load: async () => (await import("./cron.ts")).cronCommand,
  },
  {
    name: "followups",
    summary: "list or cancel the assistant's promised follow-ups",
    load: async () => (await import("./followups.ts")).followupsCommand,
  },
  {
    name: "backup",
    summary: "write an encrypted backup of the box, or restore one",
    load: async () => (await import("./backup.ts")).backupCommand,
  },
];
