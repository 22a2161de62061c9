/**
 * Grabbing one frame from a camera, bounded in time and size:
 * - http: GET a snapshot URL (Home Assistant camera proxy, Frigate, a camera's CGI),
 *   with a bearer token or basic auth from environment variables;
 * - rtsp: ffmpeg reads one frame over TCP;
 * - v4l2: ffmpeg reads one frame from a USB camera;
 * - rpicam: `rpicam-still` takes one picture with the Pi camera.
 * ffmpeg and rpicam-still already scale the frame to <= 1200 px. Secrets (passwords,
 * tokens, credentials in URLs) never appear in errors.
 */
import { ClawboxError } from "../errors/index.ts";
import { runBoundedProcess } from "../system/index.ts";
import type { Camera } from "./device-entries.ts";

const SCALE_1200 = "scale='if(gt(iw,ih),min(1200,iw),-2)':'if(gt(iw,ih),-2,min(1200,ih))'";

const failed = (camera: Camera, message: string, hint?: string) =>
  new ClawboxError("TOOL_FAILED", `camera ${camera.name}: ${message}`, hint ? { hint } : {});

/** The URL without credentials or query (which may hold a token), for messages. */
export function safeUrl(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.protocol}//${parsed.host}${parsed.pathname}`;
  } catch {
    return "(invalid URL)";
  }
}

function secret(
  camera: Camera,
  name: string | undefined,
  env: NodeJS.ProcessEnv,
): string | undefined {
  if (!name) return undefined;
  const value = env[name];
  if (value === undefined)
    throw failed(
      camera,
      `environment variable ${name} is not set`,
      "set it in the service environment",
    );
  return value;
}

async function readCapped(response: Response, camera: Camera): Promise<Buffer> {
  const length = Number(response.headers.get("content-length") ?? Number.NaN);
  if (length > camera.maxBytes)
    throw failed(camera, `the snapshot is ${length} bytes, over the ${camera.maxBytes}-byte cap`);
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = response.body?.getReader();
  if (!reader) return Buffer.alloc(0);
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.length;
    if (size > camera.maxBytes) {
      await reader.cancel();
      throw failed(camera, `the snapshot is over the ${camera.maxBytes}-byte cap`);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks);
}

async function httpFrame(
  camera: Camera,
  signal: AbortSignal,
  env: NodeJS.ProcessEnv,
): Promise<Buffer> {
  const url = camera.url ?? "";
  const headers: Record<string, string> = { accept: "image/jpeg, image/png, image/*" };
  const token = secret(camera, camera.tokenEnv, env);
  if (token) headers.authorization = `Bearer ${token}`;
  const password = secret(camera, camera.passwordEnv, env);
  if (camera.username && !token)
    headers.authorization = `Basic ${Buffer.from(`${camera.username}:${password ?? ""}`).toString("base64")}`;
  const timeout = AbortSignal.timeout(camera.timeoutMs);
  let response: Response;
  try {
    response = await fetch(url, { headers, signal: AbortSignal.any([signal, timeout]) });
  } catch (error) {
    if (timeout.aborted)
      throw failed(camera, `${safeUrl(url)} did not answer within ${camera.timeoutMs} ms`);
    const cause =
      error instanceof Error
        ? error.cause instanceof Error
          ? error.cause.message
          : error.message
        : "";
    throw failed(
      camera,
      `cannot reach ${safeUrl(url)}${cause ? ` (${cause.replace(url, safeUrl(url))})` : ""}`,
    );
  }
  if (response.status === 401 || response.status === 403)
    throw failed(
      camera,
      `${safeUrl(url)} refused the credentials (HTTP ${response.status})`,
      "check username/password_env or token_env",
    );
  if (!response.ok) throw failed(camera, `${safeUrl(url)} answered HTTP ${response.status}`);
  try {
    return await readCapped(response, camera);
  } catch (error) {
    if (timeout.aborted)
      throw failed(camera, `the snapshot did not arrive within ${camera.timeoutMs} ms`);
    throw error;
  }
}

function rtspUrl(camera: Camera, env: NodeJS.ProcessEnv): string {
  const url = new URL(camera.url ?? "");
  if (camera.username) {
    url.username = camera.username;
    url.password = secret(camera, camera.passwordEnv, env) ?? "";
  }
  return url.toString();
}

async function processFrame(
  camera: Camera,
  command: string,
  args: string[],
  signal: AbortSignal,
  what: string,
): Promise<Buffer> {
  const result = await runBoundedProcess(command, args, {
    timeoutMs: camera.timeoutMs,
    maxStdoutBytes: camera.maxBytes,
    signal,
  });
  if (result.spawnError)
    throw failed(
      camera,
      `${command} is not installed`,
      command === "ffmpeg" ? "apt-get install ffmpeg" : "install rpicam-apps",
    );
  if (result.timedOut) throw failed(camera, `no frame from ${what} within ${camera.timeoutMs} ms`);
  if (result.overflow) throw failed(camera, `the frame is over the ${camera.maxBytes}-byte cap`);
  if (result.aborted) throw new ClawboxError("ABORTED", `camera ${camera.name}: stopped`);
  if (result.code !== 0 || result.stdout.length === 0) {
    const last = result.stderr.split("\n").filter(Boolean).slice(-2).join(" ");
    const clean = camera.url
      ? last
          .split(camera.url)
          .join(safeUrl(camera.url))
          .replace(/\/\/[^/@\s]+@/g, "//")
      : last;
    throw failed(
      camera,
      `${command} could not read a frame from ${what}: ${clean || `exit code ${result.code}`}`,
    );
  }
  return result.stdout;
}

const ffmpegOut = [
  "-frames:v",
  "1",
  "-vf",
  SCALE_1200,
  "-q:v",
  "4",
  "-f",
  "image2",
  "-c:v",
  "mjpeg",
  "pipe:1",
];

/** One frame's bytes as the camera sent them (the media area checks that they are an image). */
export async function captureFrame(
  camera: Camera,
  signal: AbortSignal,
  env: NodeJS.ProcessEnv = process.env,
): Promise<Buffer> {
  const ffmpeg = (input: string[], what: string) =>
    processFrame(
      camera,
      "ffmpeg",
      ["-hide_banner", "-loglevel", "error", ...input, ...ffmpegOut],
      signal,
      what,
    );
  switch (camera.source) {
    case "http":
      return httpFrame(camera, signal, env);
    case "rtsp":
      return ffmpeg(
        ["-rtsp_transport", "tcp", "-i", rtspUrl(camera, env)],
        safeUrl(camera.url ?? ""),
      );
    case "v4l2": {
      const device = camera.device ?? "/dev/video0";
      return ffmpeg(["-f", "v4l2", "-i", device], device);
    }
    case "rpicam":
      return processFrame(
        camera,
        "rpicam-still",
        [
          ...["--nopreview", "--immediate", "--width", "1200", "--height", "900"],
          ...["--encoding", "jpg", "--output", "-"],
        ],
        signal,
        "the Pi camera",
      );
  }
}
