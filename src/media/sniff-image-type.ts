/**
 * Content-type sniffing by magic bytes: what an image really is, whatever a server's
 * Content-Type header or a file name claims. Synchronous and dependency-free so callers
 * (channels, camera) can check bytes before paying for the image library.
 */
export type ImageMimeType =
  | "image/jpeg"
  | "image/png"
  | "image/gif"
  | "image/webp"
  | "image/bmp"
  | "image/tiff";

const startsWith = (bytes: Uint8Array, prefix: number[], offset = 0): boolean =>
  bytes.length >= offset + prefix.length && prefix.every((b, i) => bytes[offset + i] === b);

const ascii = (text: string): number[] => [...text].map((c) => c.charCodeAt(0));

/** The image type of `bytes`, or undefined when they are not an image we know. */
export function sniffImageType(bytes: Uint8Array): ImageMimeType | undefined {
  if (startsWith(bytes, [0xff, 0xd8, 0xff])) return "image/jpeg";
  if (startsWith(bytes, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return "image/png";
  if (startsWith(bytes, ascii("GIF87a")) || startsWith(bytes, ascii("GIF89a"))) return "image/gif";
  if (startsWith(bytes, ascii("RIFF")) && startsWith(bytes, ascii("WEBP"), 8)) return "image/webp";
  if (startsWith(bytes, ascii("BM"))) return "image/bmp";
  if (startsWith(bytes, [0x49, 0x49, 0x2a, 0x00]) || startsWith(bytes, [0x4d, 0x4d, 0x00, 0x2a]))
    return "image/tiff";
  return undefined;
}

/** A few words on what non-image bytes look like, for error messages ("HTML page"). */
export function describeNonImage(bytes: Uint8Array): string {
  if (bytes.length === 0) return "empty";
  const head = new TextDecoder().decode(bytes.subarray(0, 64)).trimStart().toLowerCase();
  if (head.startsWith("<!doctype html") || head.startsWith("<html")) return "an HTML page";
  if (head.startsWith("{") || head.startsWith("[")) return "JSON";
  if (/^[\x20-\x7e\s]+$/.test(head)) return "text";
  return "not a known image format";
}
