/**
 * Tool policy, the exec tool's limits and MCP servers. The policy narrows the tool set
 * stage by stage (profile → provider → allow/deny → agent → channel/group → sender);
 * a deny at any stage wins over every allow.
 */
import { z } from "../../schema/index.ts";
import { camerasConfig, devicesDefaults, sshHostsConfig } from "./devices.ts";

const toolPattern = z.string().check(z.minLength(1));

/** One stage of the policy pipeline: `allow` narrows (when given), `deny` removes. */
export const toolFilter = z.object({
  allow: z.optional(z.array(toolPattern)),
  deny: z.optional(z.array(toolPattern)),
});

export const toolProfile = z.enum(["minimal", "coding", "messaging", "full"]);

/**
 * What a sender who is not an owner may use unless a more specific `strangers` filter
 * replaces it (SPEC §9a): no file writes, no exec, no session tools, no memory tools, and
 * no MCP tools (Home Assistant control: a stranger in a group chat must not unlock the door).
 */
export const DEFAULT_STRANGER_DENY = [
  "group:runtime",
  "write",
  "edit",
  "apply_patch",
  "group:sessions",
  "group:memory",
  "group:mcp",
];

/**
 * A channel, group or sender stage. `strangers`, when given, replaces the default
 * non-owner filter (`tools.strangers`) for the non-owners this stage applies to.
 */
const scopedToolFilter = z.extend(toolFilter, { strangers: z.optional(toolFilter) });

const providerToolPolicy = z.extend(toolFilter, { profile: z.optional(toolProfile) });

const enabledByDefault = z._default(z.boolean(), true);
const stringMap = z.record(z.string(), z.string());

const mcpStdioServer = z.object({
  transport: z.literal("stdio"),
  command: z.string().check(z.minLength(1)),
  args: z._default(z.array(z.string()), []),
  env: z.optional(stringMap),
  cwd: z.optional(z.string()),
  enabled: enabledByDefault,
});

const mcpHttpServer = z.object({
  transport: z.literal("http"),
  url: z.url(),
  headers: z.optional(stringMap),
  enabled: enabledByDefault,
});

export const mcpServerConfig = z.discriminatedUnion("transport", [mcpStdioServer, mcpHttpServer]);

export const mcpSection = z._default(
  z.object({
    servers: z._default(
      z.record(z.string().check(z.regex(/^[a-zA-Z0-9_-]+$/)), mcpServerConfig),
      {},
    ),
    /** Connecting and listing tools; startup never waits longer than this per server. */
    connectTimeoutMs: z._default(z.number().check(z.int(), z.minimum(100)), 10000),
    /** One tool call; a hanging server returns an error result after this. */
    callTimeoutMs: z._default(z.number().check(z.int(), z.minimum(100)), 30000),
    /** Wait before reconnecting a failed server. */
    reconnectDelayMs: z._default(z.number().check(z.int(), z.minimum(0)), 5000),
  }),
  { servers: {}, connectTimeoutMs: 10000, callTimeoutMs: 30000, reconnectDelayMs: 5000 },
);

export const toolsSection = z._default(
  z.object({
    profile: z._default(toolProfile, "full"),
    allow: z.optional(z.array(toolPattern)),
    deny: z.optional(z.array(toolPattern)),
    /** Per provider id (key of `models.providers`). */
    byProvider: z._default(z.record(z.string(), providerToolPolicy), {}),
    /** Per channel ("qq") or channel group ("qq:group:GROUPID"). */
    byChannel: z._default(z.record(z.string(), scopedToolFilter), {}),
    /** Per sender id ("qq:OPENID"). */
    bySender: z._default(z.record(z.string(), scopedToolFilter), {}),
    /** The non-owner stage: applies to every sender not in `agent.owners`. */
    strangers: z._default(toolFilter, { deny: DEFAULT_STRANGER_DENY }),
    /**
     * An owner's turn in a group chat gets the tools the group's strangers get and none of
     * the owner's private files, because everyone in the group writes into that turn's
     * context (docs/SECURITY.md). `true` gives such turns the owner's tools and files:
     * then anyone in the group can steer them with words.
     */
    ownerToolsInGroups: z._default(z.boolean(), false),
    /** Run a turn's tool calls in parallel or one after another. */
    execution: z._default(z.enum(["parallel", "sequential"]), "parallel"),
    exec: z._default(
      z.object({
        timeoutMs: z._default(z.number().check(z.int(), z.minimum(100)), 30000),
        maxOutputChars: z._default(z.number().check(z.int(), z.minimum(100)), 20000),
        /** Environment variables passed to commands besides PATH, HOME, LANG… (never all). */
        passEnv: z._default(z.array(z.string().check(z.regex(/^[A-Za-z_][A-Za-z0-9_]*$/))), []),
      }),
      { timeoutMs: 30000, maxOutputChars: 20000, passEnv: [] },
    ),
    /**
     * Limits of the file tools (docs/TOOLS.md): `write`, `edit` and `apply_patch` refuse a
     * file larger than `maxFileBytes`, and any write that would leave less than
     * `minFreeDiskBytes` free on the workspace's disk.
     */
    files: z._default(
      z.object({
        maxFileBytes: z._default(z.number().check(z.int(), z.minimum(1024)), 1024 * 1024),
        minFreeDiskBytes: z._default(z.number().check(z.int(), z.minimum(0)), 256 * 1024 * 1024),
      }),
      { maxFileBytes: 1024 * 1024, minFreeDiskBytes: 256 * 1024 * 1024 },
    ),
    mcp: mcpSection,
    /** camera_snapshot sources beyond or over TOOLS.md (docs/TOOLS.md). */
    cameras: z._default(camerasConfig, {}),
    /** ssh_exec hosts beyond or over TOOLS.md (docs/TOOLS.md). */
    ssh: z._default(sshHostsConfig, {}),
    devices: devicesDefaults,
  }),
  {
    profile: "full",
    byProvider: {},
    byChannel: {},
    bySender: {},
    strangers: { deny: DEFAULT_STRANGER_DENY },
    ownerToolsInGroups: false,
    execution: "parallel",
    exec: { timeoutMs: 30000, maxOutputChars: 20000, passEnv: [] },
    files: { maxFileBytes: 1024 * 1024, minFreeDiskBytes: 256 * 1024 * 1024 },
    mcp: { servers: {}, connectTimeoutMs: 10000, callTimeoutMs: 30000, reconnectDelayMs: 5000 },
    cameras: {},
    ssh: {},
    devices: { timeoutMs: 15_000, maxOutputChars: 20_000, maxImageBytes: 15 * 1024 * 1024 },
  },
);

export type ToolsConfig = z.infer<typeof toolsSection>;
export type ToolFilter = z.infer<typeof toolFilter>;
export type ToolProfile = z.infer<typeof toolProfile>;
export type McpConfig = z.infer<typeof mcpSection>;
export type FileLimits = ToolsConfig["files"];
export type McpServerConfig = z.infer<typeof mcpServerConfig>;
