import { describe, expect, it, vi } from "vitest";

const parsers = vi.hoisted(() => ({ made: 0 }));
vi.mock("saxes", async (original) => {
  const real = await original<typeof import("saxes")>();
  class CountingParser extends real.SaxesParser {
    constructor() {
      super();
      parsers.made++;
    }
  }
  return { ...real, SaxesParser: CountingParser };
});

const { encryptedField, readXmlFields } = await import("./callback-xml.ts");
const { handleAppCallback } = await import("./app-callback.ts");
const { silentLogger } = await import("../../system/index.ts");
const { platformEncrypt, platformSign } = await import(
  "../../../test/fakes/wecom-callback-sender.ts"
);

const crypto = {
  token: "tok",
  encodingAESKey: "abcdefghijklmnopqrstuvwxyz0123456789ABCDEFG",
  receiveId: "wwcorp",
};

describe("WeCom callback XML", () => {
  it("finds the Encrypt text (CDATA or plain) and refuses anything but base64", () => {
    expect(encryptedField("<xml><Encrypt><![CDATA[QUJD]]></Encrypt></xml>")).toBe("QUJD");
    expect(encryptedField("<xml><Encrypt>QUI=</Encrypt></xml>")).toBe("QUI=");
    expect(encryptedField("<xml><Encrypt>QUJD<x/></Encrypt></xml>")).toBeUndefined();
    expect(encryptedField("<xml><Encrypt>QU=D</Encrypt></xml>")).toBeUndefined();
    expect(encryptedField("<xml><Encrypt>QUJD")).toBeUndefined();
    expect(encryptedField("<a><![CDATA[".repeat(21_800))).toBeUndefined();
  });

  it("reads the flat children of a decrypted message: CDATA, entities, nested skipped, first wins", async () => {
    const fields = await readXmlFields(
      "<xml><ToUserName><![CDATA[ww]]></ToUserName><Content>a &lt;b&gt; &amp; c</Content><Deep><x>1</x></Deep><Content>second</Content><MsgId>7</MsgId></xml>",
    );
    expect(fields).toEqual({ ToUserName: "ww", Content: "a <b> & c", MsgId: "7" });
    await expect(readXmlFields("<xml><a>")).rejects.toMatchObject({ code: "HTTP_BAD_REQUEST" });
  });

  it("never parses an unsigned body: the hostile CDATA body and a forged signature are refused before any parser exists", async () => {
    const before = parsers.made;
    const post = (body: string) =>
      handleAppCallback(
        new Request("http://box/channels/wecom/app?msg_signature=x&timestamp=1&nonce=n", {
          method: "POST",
          body,
        }),
        { crypto, logger: silentLogger, receive: async () => "accepted" },
      );
    expect((await post("<a><![CDATA[".repeat(21_800))).status).toBe(400);
    const forged = await post(`<xml><Encrypt><![CDATA[${"QUJD".repeat(60_000)}]]></Encrypt></xml>`);
    expect(forged.status).toBe(403);
    expect(parsers.made).toBe(before);
    // The counter does count: a signed message is parsed (once).
    const encrypt = platformEncrypt(
      { token: crypto.token, encodingAESKey: crypto.encodingAESKey, corpId: crypto.receiveId },
      "<xml><MsgType>event</MsgType><Event>enter_agent</Event><FromUserName>u</FromUserName><ToUserName>ww</ToUserName><CreateTime>1</CreateTime><AgentID>1</AgentID></xml>",
    );
    const signature = platformSign(crypto.token, "1", "n", encrypt);
    const signed = await handleAppCallback(
      new Request(`http://box/channels/wecom/app?msg_signature=${signature}&timestamp=1&nonce=n`, {
        method: "POST",
        body: `<xml><Encrypt><![CDATA[${encrypt}]]></Encrypt></xml>`,
      }),
      { crypto, logger: silentLogger, receive: async () => "accepted" },
    );
    expect(signed.status).toBe(200);
    expect(parsers.made).toBe(before + 1);
  });
});
