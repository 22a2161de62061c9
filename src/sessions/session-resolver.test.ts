import { describe, expect, it } from "vitest";
import { isClawboxError } from "../errors/index.ts";
import { peerOfSender, senderAddress } from "./channel-identities.ts";
import { parseConversation } from "./conversation.ts";
import { WEB_TOKEN_SENDER } from "./owner-rule.ts";
import { checkSessionKey, parseSessionKey } from "./session-key.ts";
import { createSessionResolver, WEB_LOCAL_SENDER } from "./session-resolver.ts";

const agent = (
  owners: string[] = ["cli", "qq:OWNER", "wecom:BOSS"],
  directSessionMode: "per-peer" | "main" = "per-peer",
) => ({ id: "main", directSessionMode, owners });

const invalid = (run: () => unknown) => {
  try {
    run();
  } catch (error) {
    return isClawboxError(error, "SESSION_KEY_INVALID");
  }
  return false;
};

describe("session keys and addresses", () => {
  it("one rule builds and parses conversation and system keys", () => {
    const r = createSessionResolver(agent());
    const key = r.forMessage({ channel: "qq", chatType: "direct", senderId: "OPENID1" });
    expect(key).toBe("agent:main:qq:direct:OPENID1");
    expect(parseSessionKey(key)).toEqual({
      kind: "conversation",
      agentId: "main",
      conversation: { identity: "qq", channel: "qq", chatType: "direct", peer: "OPENID1" },
    });
    expect(r.forMessage({ channel: "qq", chatType: "group", senderId: "X", groupId: "G9" })).toBe(
      "agent:main:qq:group:G9",
    );
    expect(r.system("heartbeat")).toBe("agent:main:heartbeat");
    expect(parseSessionKey("agent:main:followups")).toEqual({
      kind: "system",
      agentId: "main",
      name: "followups",
    });
    for (const bad of ["agent:main:web:direct:../x", "agent::web:direct:x", "agent:main:x", "k"])
      expect(parseSessionKey(bad), bad).toBeUndefined();
    expect(invalid(() => checkSessionKey("agent:main:web:direct:a/b"))).toBe(true);
    expect(invalid(() => checkSessionKey("agent:other:cli:direct:x", "main"))).toBe(true);
    expect(
      invalid(() => r.forMessage({ channel: "qq", chatType: "direct", senderId: "a:b" })),
    ).toBe(true);
  });

  it("a WeCom user is wecom:ID on both WeCom channels, and is pushed to on the channel they used", () => {
    expect(senderAddress("wecom-app", "U1")).toBe("wecom:U1");
    expect(senderAddress("wecom-bot", "U1")).toBe("wecom:U1");
    expect(peerOfSender("wecom:U1", "wecom-bot")).toBe("U1");
    expect(peerOfSender("wecom:U1", "wecom-app")).toBe("U1");
    expect(peerOfSender("qq:U1", "wecom-app")).toBeUndefined();
    expect(peerOfSender("cli", "cli")).toBeUndefined();
    expect(parseConversation("wecom-bot:group:CHAT1")).toMatchObject({
      identity: "wecom",
      channel: "wecom-bot",
      chatType: "group",
      peer: "CHAT1",
    });
    expect(parseConversation("qq:direct:a b")).toBeUndefined();
  });

  it("short names resolve the same way on the CLI and the console, inside the channel elsewhere", () => {
    const r = createSessionResolver(agent());
    expect(r.resolve("kitchen", "cli")).toBe("agent:main:cli:direct:kitchen");
    expect(r.resolve("kitchen", "console")).toBe("agent:main:cli:direct:kitchen");
    expect(r.resolve("kitchen", "web")).toBe("agent:main:web:direct:kitchen");
    expect(r.resolve("doorbell", "mqtt")).toBe("agent:main:mqtt:direct:doorbell");
    expect(r.resolve("agent:main:qq:direct:X", "cli")).toBe("agent:main:qq:direct:X");
    for (const bad of ["x".repeat(65), "..", "kitchen\n", "a b", ":"])
      expect(
        invalid(() => r.resolve(bad, "cli")),
        JSON.stringify(bad),
      ).toBe(true);
  });

  it('directSessionMode "main" folds only owners\' direct chats', () => {
    const r = createSessionResolver(agent(undefined, "main"));
    expect(r.forMessage({ channel: "qq", chatType: "direct", senderId: "OWNER" })).toBe(
      "agent:main:main",
    );
    expect(r.forMessage({ channel: "wecom-bot", chatType: "direct", senderId: "BOSS" })).toBe(
      "agent:main:main",
    );
    expect(r.forMessage({ channel: "qq", chatType: "direct", senderId: "STRANGER" })).toBe(
      "agent:main:qq:direct:STRANGER",
    );
    expect(r.defaultSession("cli", true)).toBe("agent:main:main");
    expect(r.defaultSession("web", true)).toBe("agent:main:main");
    expect(r.defaultSession("web", false)).toBe("agent:main:web:direct:local");
    expect(r.defaultSession("mqtt", true)).toBe("agent:main:mqtt:direct:home-assistant");
  });

  it("a session belongs to one principal; a turn of another is refused", () => {
    const r = createSessionResolver(agent());
    const owner = r.principalOfTurn({ channel: "cli", chatType: "direct", senderId: "cli" });
    const token = r.principalOfTurn({
      channel: "web",
      chatType: "direct",
      senderId: WEB_TOKEN_SENDER,
    });
    const local = r.principalOfTurn({
      channel: "web",
      chatType: "direct",
      senderId: WEB_LOCAL_SENDER,
    });
    const group = r.principalOfTurn({
      channel: "qq",
      chatType: "group",
      senderId: "qq:OWNER",
      groupId: "G1",
    });
    expect([owner, token, local, group]).toEqual(["owner", "owner", "web:local", "group:qq:G1"]);
    const ownerWeb = "agent:main:web:direct:owner";
    expect(r.admit(ownerWeb, undefined, local).ok).toBe(false);
    expect(r.admit(ownerWeb, undefined, owner).ok).toBe(true);
    // The token's and the CLI's names are the owner's, whoever names them first.
    for (const peer of ["token", "cli"]) {
      expect(r.admit(`agent:main:web:direct:${peer}`, undefined, local).ok).toBe(false);
      expect(r.reservedFor(`agent:main:web:direct:${peer}`)).toBe("owner");
    }
    // A named web session belongs to whoever spoke first.
    const named = { sessionKey: "agent:main:web:direct:kitchen", principal: "web:local" };
    expect(r.admit(named.sessionKey, undefined, local).ok).toBe(true);
    expect(r.admit(named.sessionKey, named, owner).ok).toBe(false);
    // Rows stored before principals were recorded: the key decides, else the owner.
    expect(r.principalOfSession({ sessionKey: "agent:main:qq:direct:S", principal: null })).toBe(
      "qq:S",
    );
    expect(
      r.principalOfSession({ sessionKey: "agent:main:web:direct:kitchen", principal: null }),
    ).toBe("owner");
  });

  it("owners are read on every call: someone added at runtime is an owner at once", () => {
    const config = agent(["cli"]);
    const r = createSessionResolver(config);
    const turn = { channel: "qq", chatType: "direct" as const, senderId: "qq:NEW" };
    expect(r.principalOfTurn(turn)).toBe("qq:NEW");
    config.owners.push("qq:NEW");
    expect(r.principalOfTurn(turn)).toBe("owner");
    expect(r.reservedFor("agent:main:qq:direct:NEW")).toBe("owner");
  });
});
