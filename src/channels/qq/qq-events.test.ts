import { describe, expect, it } from "vitest";
import { messageOfEvent } from "./qq-events.ts";

describe("QQ message events", () => {
  it("turns a C2C voice message with its transcript and an image into attachments", () => {
    const message = messageOfEvent(
      "C2C_MESSAGE_CREATE",
      {
        id: "ROBOT1.0_abc",
        content: " ",
        timestamp: "2026-12-01T10:00:00+08:00",
        author: { user_openid: "U1" },
        attachments: [
          { content_type: "voice", url: "https://x.qq.com/v.silk", asr_refer_text: "开灯" },
          {
            content_type: "image/png",
            filename: "cat.png",
            url: "//multimedia.nt.qq.com.cn/p",
            size: "123",
          },
        ],
      },
      Date.parse("2026-12-01T02:00:05Z"),
    );
    expect(message).toMatchObject({
      channel: "qq",
      messageId: "ROBOT1.0_abc",
      chatType: "direct",
      senderId: "U1",
      text: "",
      sentAt: Date.parse("2026-12-01T02:00:00Z"),
      attachments: [
        { kind: "voice", transcript: "开灯", url: "https://x.qq.com/v.silk" },
        { kind: "image", name: "cat.png", url: "https://multimedia.nt.qq.com.cn/p", size: 123 },
      ],
    });
  });

  it("reads a group @-message's group and member, ignores other events, and rejects a message without an id", () => {
    const group = messageOfEvent("GROUP_AT_MESSAGE_CREATE", {
      id: "g1",
      content: " hello ",
      group_openid: "G",
      author: { member_openid: "M" },
    });
    expect(group).toMatchObject({
      chatType: "group",
      groupId: "G",
      senderId: "M",
      text: "hello",
      mentioned: true,
    });
    expect(messageOfEvent("FRIEND_ADD", { openid: "x" })).toBeUndefined();
    expect(() =>
      messageOfEvent("C2C_MESSAGE_CREATE", { content: "no id", author: { user_openid: "U" } }),
    ).toThrow();
  });
});
