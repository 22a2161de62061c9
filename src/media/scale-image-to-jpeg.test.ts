import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { isClawboxError } from "../errors/index.ts";
import { scaleImageToJpeg, sniffImageType } from "./index.ts";

const hasFfmpeg = spawnSync("ffmpeg", ["-version"]).status === 0;
if (!hasFfmpeg) console.warn("skipping ffmpeg-made images: ffmpeg is not installed");

/** A 2000x1500 test pattern encoded by real ffmpeg in the given format. */
function ffmpegImage(codec: string, format: string, size = "2000x1500"): Buffer {
  const out = spawnSync(
    "ffmpeg",
    [
      ...["-hide_banner", "-loglevel", "error", "-f", "lavfi", "-i", `testsrc=size=${size}`],
      ...["-frames:v", "1", "-c:v", codec, "-f", format, "pipe:1"],
    ],
    { maxBuffer: 64 * 1024 * 1024 },
  );
  if (out.status !== 0) throw new Error(`ffmpeg failed: ${out.stderr}`);
  return out.stdout;
}

async function expectInvalid(promise: Promise<unknown>, words: RegExp) {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(isClawboxError(error, "MEDIA_INVALID")).toBe(true);
  expect(String((error as Error).message)).toMatch(words);
}

describe("scaling images to JPEG", () => {
  it.skipIf(!hasFfmpeg).each([
    ["PNG", "png", "image2", "image/png"],
    ["JPEG", "mjpeg", "image2", "image/jpeg"],
    ["WebP", "libwebp", "webp", "image/webp"],
  ])("a 2000x1500 %s becomes a 1200x900 JPEG", async (_name, codec, format, mime) => {
    const input = ffmpegImage(codec, format);
    expect(sniffImageType(input)).toBe(mime);
    const out = await scaleImageToJpeg(input);
    expect(out.mimeType).toBe("image/jpeg");
    expect(sniffImageType(out.data)).toBe("image/jpeg");
    expect([out.width, out.height]).toEqual([1200, 900]);
    expect(out.source).toMatchObject({ mimeType: mime, width: 2000, height: 1500 });
    const { imageSize } = await import("image-size");
    expect(imageSize(out.data)).toMatchObject({ width: 1200, height: 900, type: "jpg" });
  });

  it("a small transparent PNG keeps its size and gets a white background", async () => {
    const { Jimp } = await import("jimp");
    const png = await new Jimp({ width: 40, height: 30, color: 0x00000000 }).getBuffer("image/png");
    const out = await scaleImageToJpeg(png, { maxSide: 1200 });
    expect([out.width, out.height]).toEqual([40, 30]);
    const decoded = await Jimp.fromBuffer(out.data);
    const { r, g, b } = (await import("jimp")).intToRGBA(decoded.getPixelColor(5, 5));
    expect(Math.min(r, g, b)).toBeGreaterThan(240);
  });

  it("a tall image is bounded by its height", async () => {
    const { Jimp } = await import("jimp");
    const png = await new Jimp({ width: 300, height: 3000, color: 0x336699ff }).getBuffer(
      "image/png",
    );
    const out = await scaleImageToJpeg(png);
    expect([out.width, out.height]).toEqual([120, 1200]);
  });

  it("an HTML error page is refused as not an image", async () => {
    const html = Buffer.from("<!DOCTYPE html><html><body>401 Unauthorized</body></html>");
    expect(sniffImageType(html)).toBeUndefined();
    await expectInvalid(
      scaleImageToJpeg(html, { label: "camera porch" }),
      /camera porch: not an image \(an HTML page\)/,
    );
  });

  it("input over the byte cap is refused before decoding", async () => {
    const { Jimp } = await import("jimp");
    const png = await new Jimp({ width: 200, height: 200, color: 0x336699ff }).getBuffer(
      "image/png",
    );
    await expectInvalid(scaleImageToJpeg(png, { maxInputBytes: 100 }), /over the 0\.0 MB cap/);
  });

  it("an image whose header claims too many pixels is refused before decoding", async () => {
    // A PNG header saying 60000x60000 followed by no real data: a decompression bomb's shape.
    const header = Buffer.alloc(33);
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]).copy(header, 0);
    header.writeUInt32BE(13, 8);
    header.write("IHDR", 12, "ascii");
    header.writeUInt32BE(60000, 16);
    header.writeUInt32BE(60000, 20);
    header[24] = 8;
    header[25] = 6;
    await expectInvalid(scaleImageToJpeg(header), /60000x60000 is over the 50 megapixel cap/);
  });

  it("a truncated JPEG is reported as undecodable, not thrown raw", async () => {
    const jpeg = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46]);
    await expectInvalid(scaleImageToJpeg(jpeg), /image|decoded|header/);
  });
});
