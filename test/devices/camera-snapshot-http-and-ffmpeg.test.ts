import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { configSchema } from "../../src/config/index.ts";
import { createDeviceTools } from "../../src/devices/index.ts";
import { sniffImageType } from "../../src/media/index.ts";
import type { AgentTool, ToolOutput } from "../../src/tools/index.ts";
import { startTestRtspServer, type TestRtspServer } from "../support/test-rtsp-server.ts";

const ffmpegMissing =
  spawnSync("ffmpeg", ["-version"]).status === 0
    ? undefined
    : "ffmpeg is not installed (Debian ffmpeg)";
if (ffmpegMissing) console.warn(`skipping camera_snapshot tests: ${ffmpegMissing}`);

/** A 1920x1080 test pattern, JPEG-encoded by real ffmpeg (what a camera's snapshot URL returns). */
const testFrame = (): Buffer =>
  spawnSync(
    "ffmpeg",
    [
      "-hide_banner",
      "-loglevel",
      "error",
      "-f",
      "lavfi",
      "-i",
      "testsrc=size=1920x1080",
      "-frames:v",
      "1",
      "-c:v",
      "mjpeg",
      "-f",
      "image2",
      "pipe:1",
    ],
    { maxBuffer: 32 * 1024 * 1024 },
  ).stdout;

let http: Server | undefined;
let base = "";
let rtsp: TestRtspServer | undefined;
const homes: string[] = [];
const TOKEN = "ha-long-lived-token-0123456789";

beforeAll(async () => {
  if (ffmpegMissing) return;
  const frame = testFrame();
  http = createServer((req, res) => {
    if (req.url?.split("?")[0] === "/api/camera_proxy/camera.porch") {
      if (req.headers.authorization !== `Bearer ${TOKEN}`) {
        res.writeHead(401).end("401: Unauthorized");
        return;
      }
      res
        .writeHead(200, { "content-type": "image/jpeg", "content-length": frame.length })
        .end(frame);
    } else if (req.url === "/login") {
      res.writeHead(200, { "content-type": "image/jpeg" }).end("<!DOCTYPE html><html>login</html>");
    } else if (req.url === "/chunked") {
      res.writeHead(200, { "content-type": "image/jpeg" });
      res.write(frame.subarray(0, 4096));
      res.end(frame.subarray(4096));
    } else if (req.url === "/slow") {
      res.writeHead(200, { "content-type": "image/jpeg" });
      res.write(frame.subarray(0, 100));
    } else res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => http?.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  rtsp = await startTestRtspServer().catch((error: Error) => {
    console.warn(`skipping the RTSP case: ${error.message}`);
    return undefined;
  });
});

afterAll(async () => {
  http?.closeAllConnections();
  http?.close();
  await rtsp?.stop();
  for (const home of homes) rmSync(home, { recursive: true, force: true });
});

function cameraTool(toolsMd: string, cameras: Record<string, unknown> = {}, vision = true) {
  const home = mkdtempSync(join(tmpdir(), "clawbox-camera-"));
  homes.push(home);
  const workspace = join(home, "workspace");
  mkdirSync(workspace, { recursive: true });
  writeFileSync(join(workspace, "TOOLS.md"), `# TOOLS.md\n\n## Cameras\n\n${toolsMd}`);
  const tools = configSchema.parse({ tools: { cameras, devices: { timeoutMs: 8000 } } }).tools;
  const tool = createDeviceTools({ tools, home, workspace, vision: () => vision })().find(
    (t) => t.name === "camera_snapshot",
  );
  if (!tool) throw new Error("no camera_snapshot tool");
  return { tool, workspace };
}

const snap = (tool: AgentTool, camera: string) =>
  tool.execute(
    { camera },
    {
      sessionId: "s",
      sessionKey: "k",
      isOwner: true,
      workspace: "/tmp",
      signal: new AbortController().signal,
    },
  );
const text = (out: ToolOutput) =>
  out.content.map((c) => (c.type === "text" ? c.text : "")).join("");

async function expectScaledJpeg(out: ToolOutput, workspace: string) {
  expect(out.isError).toBeFalsy();
  const image = out.content.find((c) => c.type === "image");
  expect(image?.type === "image" && image.mimeType).toBe("image/jpeg");
  const details = out.details as { path: string; width: number; height: number };
  expect(Math.max(details.width, details.height)).toBeLessThanOrEqual(1200);
  // 1920x1080 → 1200 wide; ffmpeg rounds the height to an even 676, jimp to 675.
  expect(details.width).toBe(1200);
  expect([675, 676]).toContain(details.height);
  const saved = readFileSync(join(workspace, details.path));
  expect(sniffImageType(saved)).toBe("image/jpeg");
  const { imageSize } = await import("image-size");
  expect(imageSize(saved)).toMatchObject({ width: 1200, height: details.height, type: "jpg" });
  expect(image?.type === "image" && Buffer.from(image.data, "base64").equals(saved)).toBe(true);
}

describe.skipIf(ffmpegMissing !== undefined)("camera_snapshot", () => {
  it("an HTTP snapshot URL with a bearer token from the environment yields a <= 1200 px JPEG in media/", async () => {
    process.env.CLAWBOX_TEST_HA_TOKEN = TOKEN;
    const { tool, workspace } = cameraTool(
      `- name: porch\n  url: ${base}/api/camera_proxy/camera.porch\n  token_env: CLAWBOX_TEST_HA_TOKEN\n  description: porch\n`,
    );
    expect(tool.ownerOnly).toBe(true);
    await expectScaledJpeg(await snap(tool, "porch"), workspace);
  });

  it("without vision the model gets the file path and size instead of the image", async () => {
    process.env.CLAWBOX_TEST_HA_TOKEN = TOKEN;
    const { tool, workspace } = cameraTool(
      `- name: porch\n  url: ${base}/api/camera_proxy/camera.porch\n  token_env: CLAWBOX_TEST_HA_TOKEN\n`,
      {},
      false,
    );
    const out = await snap(tool, "porch");
    expect(out.content.every((c) => c.type === "text")).toBe(true);
    expect(text(out)).toMatch(/saved: media\/porch-.*\.jpg \(1200x67[56] JPEG, \d+ bytes\)/);
    expect(existsSync(join(workspace, (out.details as { path: string }).path))).toBe(true);
  });

  it("a wrong token, an HTML page, a stalled answer and a missing variable fail in plain words without the secret", async () => {
    process.env.CLAWBOX_TEST_WRONG_TOKEN = "wrong-secret-token-value";
    const { tool } = cameraTool(
      [
        `- name: wrong\n  url: ${base}/api/camera_proxy/camera.porch?token=abc\n  token_env: CLAWBOX_TEST_WRONG_TOKEN`,
        `- name: login\n  url: ${base}/login`,
        `- name: unset\n  url: ${base}/api/camera_proxy/camera.porch\n  token_env: CLAWBOX_TEST_NOT_SET`,
        `- name: slow\n  url: ${base}/slow`,
        `- name: big\n  url: ${base}/api/camera_proxy/camera.porch\n  token_env: CLAWBOX_TEST_HA_TOKEN`,
        `- name: bigchunked\n  url: ${base}/chunked`,
        "",
      ].join("\n"),
      { slow: { timeoutMs: 800 }, big: { maxBytes: 2048 }, bigchunked: { maxBytes: 2048 } },
    );
    process.env.CLAWBOX_TEST_HA_TOKEN = TOKEN;
    expect(text(await snap(tool, "big"))).toMatch(
      /camera big: the snapshot is \d+ bytes, over the 2048-byte cap/,
    );
    expect(text(await snap(tool, "bigchunked"))).toContain(
      "camera bigchunked: the snapshot is over the 2048-byte cap",
    );
    const wrong = text(await snap(tool, "wrong"));
    expect(wrong).toContain("refused the credentials (HTTP 401)");
    expect(wrong).not.toContain("wrong-secret-token-value");
    expect(wrong).not.toContain("token=abc");
    expect(text(await snap(tool, "login"))).toContain("camera login: not an image (an HTML page)");
    expect(text(await snap(tool, "unset"))).toContain(
      "environment variable CLAWBOX_TEST_NOT_SET is not set",
    );
    expect(text(await snap(tool, "slow"))).toContain("did not arrive within 800 ms");
  });

  it("an RTSP camera (ffmpeg, one frame over TCP) yields a <= 1200 px JPEG", async ({ skip }) => {
    if (!rtsp) skip();
    const { tool, workspace } = cameraTool(`- name: garage\n  url: ${rtsp?.url}\n`);
    await expectScaledJpeg(await snap(tool, "garage"), workspace);
  });

  it("an RTSP camera that is not there fails in plain words within its timeout", async () => {
    const { tool } = cameraTool(
      "- name: gone\n  url: rtsp://viewer@127.0.0.1:9/stream\n  password_env: CLAWBOX_TEST_RTSP_PASSWORD\n",
      {
        gone: { timeoutMs: 3000 },
      },
    );
    process.env.CLAWBOX_TEST_RTSP_PASSWORD = "rtsp-secret";
    const out = text(await snap(tool, "gone"));
    expect(out).toMatch(
      /camera gone: (ffmpeg could not read a frame|no frame) from rtsp:\/\/127\.0\.0\.1:9\/stream/,
    );
    expect(out).not.toContain("rtsp-secret");
  });
});
