import { describe, expect, it } from "vitest";
import { configSchema } from "../config/index.ts";
import type { AgentTool } from "./tool.ts";
import { applyToolPolicy, type PolicyInput } from "./tool-policy.ts";
import { validateArguments } from "./validate-arguments.ts";

const tool = (name: string, group: string, ownerOnly = false): AgentTool => ({
  name,
  group,
  ownerOnly,
  description: name,
  parameters: { type: "object", properties: {} },
  execute: async () => ({ content: [] }),
});
const TOOLS = [
  tool("read", "fs"),
  tool("write", "fs"),
  tool("exec", "runtime", true),
  tool("session_status", "sessions"),
  tool("memory_search", "memory"),
  tool("mcp__home__light_set", "mcp"),
  tool("mcp__home__lock_door", "mcp"),
];
const owner: PolicyInput = {
  providerId: "local",
  channel: "qq",
  chatType: "direct",
  senderId: "qq:OWNER",
  isOwner: true,
};
const names = (raw: Record<string, unknown>, input: PolicyInput = owner) =>
  applyToolPolicy(TOOLS, configSchema.parse(raw), input).map((t) => t.name);

describe("tool policy pipeline", () => {
  it("profiles narrow the set", () => {
    expect(names({ tools: { profile: "minimal" } })).toEqual(["session_status"]);
    expect(names({ tools: { profile: "messaging" } })).toEqual([
      "session_status",
      "memory_search",
      "mcp__home__light_set",
      "mcp__home__lock_door",
    ]);
    expect(names({ tools: { profile: "coding" } })).toEqual([
      "read",
      "write",
      "exec",
      "session_status",
      "memory_search",
    ]);
    expect(names({})).toHaveLength(TOOLS.length);
  });

  it("stages apply in order and a deny anywhere wins over any allow", () => {
    const config = {
      tools: {
        byProvider: { local: { profile: "messaging" } },
        allow: ["mcp__home__*", "session_status"],
        byChannel: { qq: { deny: ["mcp__home__lock_*"] } },
        bySender: { "qq:OWNER": { allow: ["mcp__*"] } },
      },
      agent: { tools: { allow: ["*"] } },
    };
    expect(names(config)).toEqual(["mcp__home__light_set"]);
    // A non-owner passes the same stages and then the strangers stage, which by default
    // keeps MCP tools (the house) from them.
    expect(
      names(config, { ...owner, providerId: "cloud", senderId: "qq:OTHER", isOwner: false }),
    ).toEqual([]);
    const granted = { tools: { ...config.tools, strangers: { deny: ["group:sessions"] } } };
    expect(
      names(granted, { ...owner, providerId: "cloud", senderId: "qq:OTHER", isOwner: false }),
    ).toEqual(["mcp__home__light_set"]);
  });

  it("group patterns and per-group channel filters", () => {
    const config = { tools: { byChannel: { "qq:group:G1": { deny: ["group:fs"] } } } };
    expect(names(config, { ...owner, chatType: "group", groupId: "G1" })).not.toContain("read");
    expect(names(config, { ...owner, chatType: "group", groupId: "G2" })).toContain("read");
  });

  it("owner-only tools never reach a non-owner, whatever the allow lists say", () => {
    const config = {
      tools: { allow: ["exec", "read"], bySender: { "qq:X": { allow: ["exec"] } } },
    };
    expect(names(config, { ...owner, senderId: "qq:X", isOwner: false })).toEqual([]);
    expect(names(config)).toEqual(["read", "exec"]);
  });
});

describe("the strangers stage", () => {
  const stranger: PolicyInput = {
    ...owner,
    channel: "qq",
    chatType: "group",
    groupId: "G1",
    senderId: "qq:STRANGER",
    isOwner: false,
  };
  it("by default a non-owner gets no writes, exec, session, memory or MCP tools", () => {
    expect(names({}, stranger)).toEqual(["read"]);
    expect(names({})).toHaveLength(TOOLS.length);
  });

  it("the most specific strangers filter replaces the default: sender, then group, then channel", () => {
    const config = {
      tools: {
        strangers: { deny: ["mcp__*", "group:fs"] },
        byChannel: {
          qq: { strangers: { deny: ["group:mcp"] } },
          "qq:group:G1": { strangers: { allow: ["read", "memory_search"] } },
        },
        bySender: { "qq:FRIEND": { strangers: { deny: [] } } },
      },
    };
    expect(names(config, { ...stranger, channel: "wecom", groupId: undefined })).toEqual([
      "session_status",
      "memory_search",
    ]);
    expect(names(config, { ...stranger, groupId: "G2" })).toEqual([
      "read",
      "write",
      "session_status",
      "memory_search",
    ]);
    expect(names(config, stranger)).toEqual(["read", "memory_search"]);
    // even a sender granted everything never gets an owner-only tool
    expect(names(config, { ...stranger, senderId: "qq:FRIEND" })).not.toContain("exec");
    expect(names(config, { ...stranger, senderId: "qq:FRIEND" })).toHaveLength(TOOLS.length - 1);
    // owners are not affected by any strangers filter in their direct chats
    expect(
      names(config, { ...stranger, chatType: "direct", groupId: undefined, isOwner: true }),
    ).toHaveLength(TOOLS.length);
  });

  it("an owner's turn in a group chat gets that group's strangers filter, unless tools.ownerToolsInGroups", () => {
    const config = {
      tools: { byChannel: { "qq:group:G1": { strangers: { deny: ["group:fs"] } } } },
    };
    const ownerInGroup = { ...stranger, senderId: "qq:OWNER", isOwner: true };
    expect(names({}, ownerInGroup)).toEqual(["read"]);
    expect(names(config, ownerInGroup)).toEqual([
      "session_status",
      "memory_search",
      "mcp__home__light_set",
      "mcp__home__lock_door",
    ]);
    expect(names({ tools: { ...config.tools, ownerToolsInGroups: true } }, ownerInGroup)).toEqual(
      TOOLS.map((t) => t.name),
    );
  });
});

describe("argument validation", () => {
  const schema = {
    type: "object",
    properties: {
      path: { type: "string", minLength: 1 },
      mode: { enum: ["a", "b"] },
      n: { type: "integer", minimum: 1 },
      tags: { type: "array", items: { type: "string" } },
    },
    required: ["path"],
    additionalProperties: false,
  };
  it("accepts valid arguments and names every problem otherwise", () => {
    expect(validateArguments({ path: "x", mode: "a", n: 2, tags: ["t"] }, schema)).toEqual([]);
    const problems = validateArguments({ mode: "c", n: 1.5, tags: [3], extra: true }, schema);
    expect(problems.sort()).toEqual([
      "extra: unknown argument",
      'mode: must be one of "a", "b"',
      "n: expected integer, got number",
      "path: is required",
      "tags[0]: expected string, got integer",
    ]);
  });
});
