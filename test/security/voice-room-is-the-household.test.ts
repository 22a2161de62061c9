/**
 * A voice request from a Home Assistant room (docs/SECURITY.md, "Voice rooms"): it is the
 * household, a principal of its own (not the owner, not a stranger), every room shares
 * it, its sessions are per room, and its tools are exactly `wyoming.tools`: by default
 * memory search, a camera picture and Home Assistant's own MCP tools; never exec, file
 * writes or the owner's other owner-only tools unless the owner names them there.
 */
import { describe, expect, it } from "vitest";
import { configSchema } from "../../src/config/index.ts";
import {
  createSessionResolver,
  HOUSEHOLD,
  OWNER,
  voiceRoomName,
} from "../../src/sessions/index.ts";
import { type AgentTool, applyToolPolicy, type PolicyInput } from "../../src/tools/index.ts";

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
  tool("edit", "fs"),
  tool("exec", "runtime", true),
  tool("cron", "runtime", true),
  tool("camera_snapshot", "runtime", true),
  tool("ssh_exec", "runtime", true),
  tool("sessions_history", "sessions"),
  tool("memory_search", "memory"),
  tool("memory_get", "memory"),
  tool("mcp__homeassistant__intent__HassTurnOff", "mcp"),
  tool("mcp__files__write_file", "mcp"),
];
const kitchen: PolicyInput = {
  providerId: "local",
  channel: "wyoming",
  chatType: "direct",
  senderId: "wyoming:assist_satellite.kitchen",
  isOwner: false,
};
const names = (raw: Record<string, unknown>, input: PolicyInput = kitchen) =>
  applyToolPolicy(TOOLS, configSchema.parse(raw), input).map((t) => t.name);

describe("a voice room is the household", () => {
  const resolver = createSessionResolver({
    id: "main",
    directSessionMode: "main",
    owners: ["cli"],
  });

  it("every room is one principal, not the owner and not a stranger, with a session per room", () => {
    const turn = (room: string) =>
      resolver.principalOfTurn({
        channel: "wyoming",
        chatType: "direct",
        senderId: `wyoming:${room}`,
      });
    expect(turn("assist_satellite.kitchen")).toBe(HOUSEHOLD);
    expect(turn("assist_satellite.bedroom")).toBe(HOUSEHOLD);
    expect(HOUSEHOLD).not.toBe(OWNER);
    const kitchenKey = resolver.forMessage({
      channel: "wyoming",
      chatType: "direct",
      senderId: "assist_satellite.kitchen",
    });
    const bedroomKey = resolver.forMessage({
      channel: "wyoming",
      chatType: "direct",
      senderId: "assist_satellite.bedroom",
    });
    expect(kitchenKey).toBe("agent:main:wyoming:direct:assist_satellite.kitchen");
    expect(bedroomKey).not.toBe(kitchenKey);
    // A room's session is the household's, whoever names it: a stranger cannot speak in it,
    // and the household cannot speak in the owner's.
    expect(resolver.reservedFor(kitchenKey)).toBe(HOUSEHOLD);
    expect(resolver.admit(kitchenKey, undefined, "qq:STRANGER").ok).toBe(false);
    expect(resolver.admit("agent:main:main", undefined, HOUSEHOLD).ok).toBe(false);
    expect(resolver.admit(kitchenKey, undefined, HOUSEHOLD).ok).toBe(true);
  });

  it("a room is HA's satellite, else its device; a request from no device is its own conversation", () => {
    expect(
      voiceRoomName({ satelliteId: "assist_satellite.kitchen", deviceId: "d".repeat(32) }),
    ).toBe("assist_satellite.kitchen");
    expect(voiceRoomName({ deviceId: "4a6b0c1d2e3f40516273849a5b6c7d8e" })).toBe(
      "4a6b0c1d2e3f40516273849a5b6c7d8e",
    );
    expect(voiceRoomName({ conversationId: "01JF8ZQ3V9M7W6K5T4S3R2P1N0" })).toBe(
      "conversation-01JF8ZQ3V9M7W6K5T4S3R2P1N0",
    );
    // Whatever HA sends becomes a short name (no colon, slash or space reaches a key).
    expect(voiceRoomName({ satelliteId: "../厨房 kitchen:1/x" })).toBe("kitchen-1-x");
    expect(voiceRoomName({ satelliteId: "x".repeat(300) })).toHaveLength(64);
    expect(voiceRoomName({ satelliteId: ":::" })).toBe("assist");
    expect(voiceRoomName({})).toBe("assist");
  });

  it("gets exactly the documented default tools: memory search, a camera picture, HA's own tools", () => {
    expect(names({})).toEqual([
      "camera_snapshot",
      "memory_search",
      "mcp__homeassistant__intent__HassTurnOff",
    ]);
  });

  it("a stranger on a chat channel gets none of the owner-only tools the household may have", () => {
    const stranger = { ...kitchen, channel: "qq", senderId: "qq:STRANGER" };
    const got = names({}, stranger);
    expect(got).not.toContain("camera_snapshot");
    expect(got).not.toContain("exec");
    // Even when the owner lets strangers have them: the voice list grants only voice rooms.
    const widened = names(
      {
        tools: { strangers: { allow: ["camera_snapshot", "exec", "memory_search"] } },
        wyoming: { tools: ["camera_snapshot", "exec"] },
      },
      stranger,
    );
    expect(widened).toEqual(["memory_search"]);
  });

  it("never exec, file writes or other owner-only tools unless the owner names them in wyoming.tools", () => {
    // A wildcard does not hand out an owner-only tool: only its exact name does.
    expect(names({ wyoming: { tools: ["*"] } })).not.toContain("exec");
    expect(names({ wyoming: { tools: ["*"] } })).not.toContain("cron");
    expect(names({ wyoming: { tools: ["group:runtime"] } })).toEqual([]);
    // Nor a tool that changes workspace files, nor memory_get (it reads MEMORY.md).
    for (const pattern of ["*", "group:fs", "group:memory", "e*", "memory_*"])
      for (const name of ["write", "edit", "memory_get"])
        expect(names({ wyoming: { tools: [pattern] } })).not.toContain(name);
    expect(names({ wyoming: { tools: ["group:fs"] } })).toEqual(["read"]);
    expect(names({ wyoming: { tools: ["memory_get"] } })).toEqual(["memory_get"]);
    expect(names({ wyoming: { tools: ["exec", "write"] } })).toEqual(["write", "exec"]);
    // A global deny wins over the voice list.
    expect(names({ tools: { deny: ["camera_snapshot"] } })).not.toContain("camera_snapshot");
    // The owner's own strangers filter for the channel does not apply to the household.
    expect(
      names({ tools: { byChannel: { wyoming: { strangers: { allow: ["exec", "write"] } } } } }),
    ).not.toContain("exec");
  });

  it("a room the owner lists in agent.owners is the owner", () => {
    const owned = createSessionResolver({
      id: "main",
      directSessionMode: "per-peer",
      owners: ["wyoming:assist_satellite.office"],
    });
    expect(
      owned.principalOfTurn({
        channel: "wyoming",
        chatType: "direct",
        senderId: "wyoming:assist_satellite.office",
      }),
    ).toBe(OWNER);
  });
});
