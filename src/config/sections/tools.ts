/**
 * Tool policy, the exec tool's limits and MCP servers. The policy narrows the tool set
 * stage by stage (profile → provider → allow/deny → agent → channel/group → sender);
 * a deny at any stage wins over every allow.
 */
import * as z from "zod";
import { camerasConfig, devicesDefaults, sshHostsConfig } from "./devices.ts";

const toolPattern = z.string().min(1);

/** One stage of the policy pipeline: `allow` narrows (when given), `deny` removes. */
export const toolFilter = z.object({
  allow: z.array(toolPattern).optional(),
  deny: z.array(toolPattern).optional(),
});

export const toolProfile = z.enum(["minimal", "coding", "messaging", "full"]);

/**
 * What a sender who is not an owner may use unless a more specific `strangers` filter
 * replaces it (SPEC §9a): no file writes, no exec, no session tools, no memory tools.
 */
export const DEFAULT_STRANGER_DENY = [
  "group:runtime",
  "write",
  "edit",
  "apply_patch",
  "group:sessions",
  "group:memory",
];

/**
 * A channel, group or sender stage. `strangers`, when given, replaces the default
 * non-owner filter (`tools.strangers`) for the non-owners this stage applies to.
 */
const scopedToolFilter = toolFilter.extend({ strangers: toolFilter.optional() });

const providerToolPolicy = toolFilter.extend({ profile: toolProfile.optional() });

const mcpStdioServer = z.object({
  transport: z.literal("stdio"),
  command: z.string().min(1),
  args: z.array(z.string()).default([]),
  env: z.record(z.string(), z.string()).optional(),
  cwd: z.string().optional(),
  enabled: z.boolean().default(true),
});

const mcpHttpServer = z.object({
  transport: z.literal("http"),
  url: z.string().url(),
  headers: z.record(z.string(), z.string()).optional(),
  enabled: z.boolean().default(true),
});

export const mcpServerConfig = z.discriminatedUnion("transport", [mcpStdioServer, mcpHttpServer]);

export const mcpSection = z
  .object({
    servers: z.record(z.string().regex(/^[a-zA-Z0-9_-]+$/), mcpServerConfig).default({}),
    /** Connecting and listing tools; startup never waits longer than this per server. */
    connectTimeoutMs: z.number().int().min(100).default(10000),
    /** One tool call; a hanging server returns an error result after this. */
    callTimeoutMs: z.number().int().min(100).default(30000),
    /** Wait before reconnecting a failed server. */
    reconnectDelayMs: z.number().int().min(0).default(5000),
  })
  .default({ servers: {}, connectTimeoutMs: 10000, callTimeoutMs: 30000, reconnectDelayMs: 5000 });

export const toolsSection = z
  .object({
    profile: toolProfile.default("full"),
    allow: z.array(toolPattern).optional(),
    deny: z.array(toolPattern).optional(),
    /** Per provider id (key of `models.providers`). */
    byProvider: z.record(z.string(), providerToolPolicy).default({}),
    /** Per channel ("qq") or channel group ("qq:group:GROUPID"). */
    byChannel: z.record(z.string(), scopedToolFilter).default({}),
    /** Per sender id ("qq:OPENID"). */
    bySender: z.record(z.string(), scopedToolFilter).default({}),
    /** The non-owner stage: applies to every sender not in `agent.owners`. */
    strangers: toolFilter.default({ deny: DEFAULT_STRANGER_DENY }),
    /** Run a turn's tool calls in parallel or one after another. */
    execution: z.enum(["parallel", "sequential"]).default("parallel"),
    exec: z
      .object({
        timeoutMs: z.number().int().min(100).default(30000),
        maxOutputChars: z.number().int().min(100).default(20000),
        /** Environment variables passed to commands besides PATH, HOME, LANG… (never all). */
        passEnv: z.array(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/)).default([]),
      })
      .default({ timeoutMs: 30000, maxOutputChars: 20000, passEnv: [] }),
    mcp: mcpSection,
    /** camera_snapshot sources beyond or over TOOLS.md (docs/TOOLS.md). */
    cameras: camerasConfig.default({}),
    /** ssh_exec hosts beyond or over TOOLS.md (docs/TOOLS.md). */
    ssh: sshHostsConfig.default({}),
    devices: devicesDefaults,
  })
  .default({
    profile: "full",
    byProvider: {},
    byChannel: {},
    bySender: {},
    strangers: { deny: DEFAULT_STRANGER_DENY },
    execution: "parallel",
    exec: { timeoutMs: 30000, maxOutputChars: 20000, passEnv: [] },
    mcp: { servers: {}, connectTimeoutMs: 10000, callTimeoutMs: 30000, reconnectDelayMs: 5000 },
    cameras: {},
    ssh: {},
    devices: { timeoutMs: 15_000, maxOutputChars: 20_000, maxImageBytes: 15 * 1024 * 1024 },
  });

export type ToolsConfig = z.infer<typeof toolsSection>;
export type ToolFilter = z.infer<typeof toolFilter>;
export type ToolProfile = z.infer<typeof toolProfile>;
export type McpConfig = z.infer<typeof mcpSection>;
export type McpServerConfig = z.infer<typeof mcpServerConfig>;
