/**
 * The callback crypto against vectors produced outside the code under test: the
 * official sample's published URL-verification values, Python's `cryptography` package
 * and the openssl command line, each in both directions (theirs decrypts here, ours
 * decrypts there). The framing (random, length, receiveid, PKCS#7 to 32) for openssl is
 * written out in this test, not taken from the code under test. clawbox only opens
 * envelopes; the sealing direction checked here is the fake platform's
 * (test/fakes/wecom-callback-sender.ts), which the other WeCom tests rely on.
 */
import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import {
  callbackSignature,
  openEnvelope,
  signatureMatches,
} from "../../src/channels/wecom/callback-crypto.ts";
import { platformEncrypt } from "../fakes/wecom-callback-sender.ts";

/** From the official WXBizMsgCrypt sample (企业微信 "加解密库下载与返回码" page). */
const OFFICIAL = {
  token: "QDG6eK",
  corpId: "wx5823bf96d3bd56c7",
  encodingAESKey: "jWmYm7qr5nMoAUwZRjGtBxmz3KA1tkAj3ykkR6q2B2C",
  timestamp: "1409659589",
  nonce: "263014780",
  msgSignature: "5c45ff5e21c57e6ad56bac8758b79b1d9ac89fd3",
  echostr:
    "P9nAzCzyDtyTWESHep1vC5X9xho/qYX3Zpb4yKa9SKld1DsH3Iyt3tP3zNdtp+4RPcs8TgAE7OaBO+FZXvnaqQ==",
  plain: "1616140317555161061",
};

const PYTHON_HAS_CRYPTOGRAPHY =
  spawnSync("python3", ["-c", "import cryptography"], { stdio: "ignore" }).status === 0;
if (!PYTHON_HAS_CRYPTOGRAPHY) {
  console.warn("skipping the Python vectors: python3 with the `cryptography` package is absent");
}

const HAVE_OPENSSL = spawnSync("openssl", ["version"], { stdio: "ignore" }).status === 0;
if (!HAVE_OPENSSL) console.warn("skipping the openssl vectors: the openssl command is absent");

/** Raw AES-256-CBC without padding through the openssl CLI. */
function openssl(decrypt: boolean, data: Buffer): Buffer {
  const key = Buffer.from(`${OFFICIAL.encodingAESKey}=`, "base64");
  const run = spawnSync(
    "openssl",
    [
      "enc",
      "-aes-256-cbc",
      ...(decrypt ? ["-d"] : []),
      "-nopad",
      "-K",
      key.toString("hex"),
      "-iv",
      key.subarray(0, 16).toString("hex"),
    ],
    { input: data },
  );
  if (run.status !== 0) throw new Error(`openssl failed: ${run.stderr}`);
  return run.stdout;
}

const PYTHON_ENVELOPE = `
import base64, os, struct, sys, json
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes
req = json.loads(sys.stdin.read())
key = base64.b64decode(req["encodingAESKey"] + "=")
def crypt(enc, data):
    c = Cipher(algorithms.AES(key), modes.CBC(key[:16]))
    op = c.encryptor() if enc else c.decryptor()
    return op.update(data) + op.finalize()
if req["op"] == "seal":
    msg = req["message"].encode()
    body = os.urandom(16) + struct.pack(">I", len(msg)) + msg + req["receiveId"].encode()
    pad = 32 - len(body) % 32
    print(base64.b64encode(crypt(True, body + bytes([pad]) * pad)).decode())
else:
    out = []
    for cipher in req["ciphers"]:
        plain = crypt(False, base64.b64decode(cipher))
        pad = plain[-1]
        assert 1 <= pad <= 32 and plain[-pad:] == bytes([pad]) * pad, "bad padding"
        plain = plain[:-pad]
        (n,) = struct.unpack(">I", plain[16:20])
        out.append({"message": plain[20:20+n].decode(), "receiveId": plain[20+n:].decode()})
    print(json.dumps(out))
`;

function python(request: Record<string, string | string[]>): string {
  const run = spawnSync("python3", ["-c", PYTHON_ENVELOPE], {
    input: JSON.stringify(request),
    encoding: "utf8",
  });
  if (run.status !== 0) throw new Error(`python failed: ${run.stderr}`);
  return run.stdout.trim();
}

const config = {
  token: OFFICIAL.token,
  encodingAESKey: OFFICIAL.encodingAESKey,
  receiveId: OFFICIAL.corpId,
};

describe("WeCom callback crypto", () => {
  it("verifies and decrypts the official sample's published echostr", () => {
    expect(
      callbackSignature(OFFICIAL.token, OFFICIAL.timestamp, OFFICIAL.nonce, OFFICIAL.echostr),
    ).toBe(OFFICIAL.msgSignature);
    expect(
      signatureMatches(OFFICIAL.token, {
        msgSignature: OFFICIAL.msgSignature,
        timestamp: OFFICIAL.timestamp,
        nonce: OFFICIAL.nonce,
        encrypt: OFFICIAL.echostr,
      }),
    ).toBe(true);
    expect(openEnvelope(config, OFFICIAL.echostr)).toBe(OFFICIAL.plain);
  });

  it("rejects a signature made with another token", () => {
    const forged = callbackSignature("other", OFFICIAL.timestamp, OFFICIAL.nonce, OFFICIAL.echostr);
    expect(
      signatureMatches(OFFICIAL.token, {
        msgSignature: forged,
        timestamp: OFFICIAL.timestamp,
        nonce: OFFICIAL.nonce,
        encrypt: OFFICIAL.echostr,
      }),
    ).toBe(false);
  });

  it("refuses an envelope addressed to another CorpID", () => {
    expect(() => openEnvelope({ ...config, receiveId: "wwsomeoneelse" }, OFFICIAL.echostr)).toThrow(
      /receiveid/,
    );
  });

  it.skipIf(!PYTHON_HAS_CRYPTOGRAPHY)("decrypts what Python's cryptography encrypted", () => {
    const message = "<xml><Content><![CDATA[你好, clawbox — 32-byte blocks]]></Content></xml>";
    const cipher = python({
      op: "seal",
      encodingAESKey: OFFICIAL.encodingAESKey,
      message,
      receiveId: OFFICIAL.corpId,
    });
    expect(openEnvelope(config, cipher)).toBe(message);
  });

  it.skipIf(!PYTHON_HAS_CRYPTOGRAPHY)("encrypts what Python's cryptography decrypts", () => {
    const messages = ["", "x".repeat(11), "y".repeat(12), "多字节 ✓".repeat(40)];
    const opened = JSON.parse(
      python({
        op: "open",
        encodingAESKey: OFFICIAL.encodingAESKey,
        ciphers: messages.map((message) => platformEncrypt(OFFICIAL, message)),
      }),
    ) as { message: string; receiveId: string }[];
    expect(opened).toEqual(messages.map((message) => ({ message, receiveId: OFFICIAL.corpId })));
  });

  it.skipIf(!HAVE_OPENSSL)(
    "decrypts what openssl encrypted and encrypts what openssl decrypts",
    () => {
      const message =
        "<xml><MsgType><![CDATA[text]]></MsgType><Content><![CDATA[开灯]]></Content></xml>";
      const utf8 = Buffer.from(message);
      const length = Buffer.alloc(4);
      length.writeUInt32BE(utf8.length);
      const body = Buffer.concat([Buffer.alloc(16, 7), length, utf8, Buffer.from(OFFICIAL.corpId)]);
      const pad = 32 - (body.length % 32);
      const theirs = openssl(false, Buffer.concat([body, Buffer.alloc(pad, pad)])).toString(
        "base64",
      );
      expect(openEnvelope(config, theirs)).toBe(message);

      const plain = openssl(true, Buffer.from(platformEncrypt(OFFICIAL, message), "base64"));
      const padding = plain[plain.length - 1] ?? 0;
      expect(plain.subarray(plain.length - padding).every((b) => b === padding)).toBe(true);
      const unpadded = plain.subarray(0, plain.length - padding);
      const n = unpadded.readUInt32BE(16);
      expect(unpadded.subarray(20, 20 + n).toString()).toBe(message);
      expect(unpadded.subarray(20 + n).toString()).toBe(OFFICIAL.corpId);
    },
  );
});
