/**
 * Scales an image to at most `maxSide` pixels on its long side and encodes it as JPEG,
 * the one form every vision model and chat platform takes. Guarantees: the input is
 * checked against a byte cap and (from its header, before decoding) a pixel cap, so a
 * decompression bomb never reaches the decoder; metadata (EXIF, GPS) is dropped by the
 * re-encode; transparent areas become white. The image library (jimp, pure JS, so it
 * runs under Bun and inside the compiled binary) is imported on first use only, so
 * startup does not pay for it. WebP, which jimp cannot decode, goes through the system
 * ffmpeg when it is installed. See docs/TOOLS.md "Images".
 */
import { ClawboxError } from "../errors/index.ts";
import { runBoundedProcess } from "../system/index.ts";
import { describeNonImage, type ImageMimeType, sniffImageType } from "./sniff-image-type.ts";

export const DEFAULT_MAX_SIDE = 1200;

export interface ScaleImageOptions {
  /** Longest side of the result in pixels (default 1200). */
  maxSide?: number;
  /** JPEG quality 1–100 (default 80). */
  quality?: number;
  /** Input larger than this is refused (default 20 MB). */
  maxInputBytes?: number;
  /** Input with more pixels than this is refused before decoding (default 50 MP). */
  maxPixels?: number;
  /** ffmpeg binary for WebP (default "ffmpeg" on PATH). */
  ffmpegPath?: string;
  /** Where the bytes came from, for error messages ("camera porch"). */
  label?: string;
  /**
   * Scale with the system ffmpeg when it is installed (native: ~10x faster than jimp on
   * a Pi for camera frames); falls back to jimp when ffmpeg is absent or fails.
   */
  preferFfmpeg?: boolean;
}

export interface ScaledImage {
  /** JPEG bytes. */
  data: Buffer;
  mimeType: "image/jpeg";
  width: number;
  height: number;
  source: { mimeType: ImageMimeType; width: number; height: number; bytes: number };
}

const MB = 1024 * 1024;

function invalid(label: string, message: string, hint?: string): ClawboxError {
  return new ClawboxError("MEDIA_INVALID", `${label}: ${message}`, { hint });
}

/** Target size keeping the aspect ratio, never enlarging. */
export function fitWithin(width: number, height: number, maxSide: number) {
  const scale = Math.min(1, maxSide / Math.max(width, height));
  return {
    width: Math.max(1, Math.round(width * scale)),
    height: Math.max(1, Math.round(height * scale)),
  };
}

async function headerSize(bytes: Uint8Array, label: string) {
  const { imageSize } = await import("image-size");
  try {
    const size = imageSize(bytes);
    const rotated = (size.orientation ?? 1) >= 5;
    if (!size.width || !size.height) throw new ClawboxError("MEDIA_INVALID", "no dimensions");
    return rotated
      ? { width: size.height, height: size.width }
      : { width: size.width, height: size.height };
  } catch (error) {
    throw invalid(label, `image header unreadable (${(error as Error).message})`);
  }
}

async function scaleWithJimp(bytes: Uint8Array, maxSide: number, quality: number) {
  const { Jimp } = await import("jimp");
  const image = await Jimp.fromBuffer(Buffer.from(bytes));
  const target = fitWithin(image.width, image.height, maxSide);
  if (target.width !== image.width || target.height !== image.height)
    image.resize({ w: target.width, h: target.height });
  const flat = new Jimp({ width: image.width, height: image.height, color: 0xffffffff });
  flat.composite(image, 0, 0);
  const data = await flat.getBuffer("image/jpeg", { quality });
  return { data, width: flat.width, height: flat.height };
}

async function scaleWithFfmpeg(
  bytes: Uint8Array,
  size: { width: number; height: number },
  options: { maxSide: number; quality: number; ffmpegPath: string; label: string },
) {
  const target = fitWithin(size.width, size.height, options.maxSide);
  // ffmpeg's mjpeg qscale runs 2 (best) .. 31; map quality 100..1 onto it.
  const qscale = Math.round(2 + ((100 - options.quality) / 99) * 29);
  const result = await runBoundedProcess(
    options.ffmpegPath,
    [
      ...["-hide_banner", "-loglevel", "error", "-i", "pipe:0", "-frames:v", "1"],
      ...["-vf", `scale=${target.width}:${target.height}`, "-q:v", String(qscale)],
      ...["-f", "image2", "-c:v", "mjpeg", "pipe:1"],
    ],
    { timeoutMs: 20_000, maxStdoutBytes: 20 * MB, stdin: bytes },
  );
  if (result.spawnError)
    throw invalid(
      options.label,
      "WebP images need ffmpeg, which is not installed",
      "apt-get install ffmpeg",
    );
  if (result.code !== 0 || result.stdout.length === 0)
    throw invalid(options.label, `ffmpeg could not decode the WebP image: ${result.stderr}`);
  return { data: result.stdout, ...target };
}

export async function scaleImageToJpeg(
  input: Uint8Array,
  options: ScaleImageOptions = {},
): Promise<ScaledImage> {
  const label = options.label ?? "image";
  const maxSide = options.maxSide ?? DEFAULT_MAX_SIDE;
  const quality = options.quality ?? 80;
  const maxInputBytes = options.maxInputBytes ?? 20 * MB;
  const maxPixels = options.maxPixels ?? 50_000_000;
  if (input.length > maxInputBytes)
    throw invalid(
      label,
      `${(input.length / MB).toFixed(1)} MB is over the ${(maxInputBytes / MB).toFixed(1)} MB cap`,
    );
  const mimeType = sniffImageType(input);
  if (!mimeType) throw invalid(label, `not an image (${describeNonImage(input)})`);
  const size = await headerSize(input, label);
  if (size.width * size.height > maxPixels)
    throw invalid(
      label,
      `${size.width}x${size.height} is over the ${(maxPixels / 1e6).toFixed(0)} megapixel cap`,
    );
  let out: { data: Buffer; width: number; height: number } | undefined;
  const ffmpeg = { maxSide, quality, ffmpegPath: options.ffmpegPath ?? "ffmpeg", label };
  try {
    if (options.preferFfmpeg && mimeType !== "image/webp")
      out = await scaleWithFfmpeg(input, size, ffmpeg).catch(() => undefined);
    out ??=
      mimeType === "image/webp"
        ? await scaleWithFfmpeg(input, size, ffmpeg)
        : await scaleWithJimp(input, maxSide, quality);
  } catch (error) {
    if (error instanceof ClawboxError) throw error;
    throw invalid(label, `${mimeType} could not be decoded (${(error as Error).message})`);
  }
  return {
    ...out,
    mimeType: "image/jpeg",
    source: { mimeType, ...size, bytes: input.length },
  };
}
