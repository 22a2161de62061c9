/**
 * Inbound attachments as the model sees them. Voice uses the platform's transcript;
 * images are downloaded (size cap, image content type only, redirects never followed
 * into loopback/private/link-local ranges), scaled to <= 1200 px by the media area and
 * attached when the model can see images; otherwise, or when anything goes wrong, the
 * model reads `[image: name]`. A bad attachment never fails the turn.
 */

import { ClawboxError } from "../errors/index.ts";
import type { ImageContent } from "../messages/index.ts";
import type { InboundAttachment, InboundMessage } from "./channel.ts";
import { fetchPublic } from "./fetch-public.ts";

export const MAX_IMAGE_BYTES = 10 * 1024 * 1024;

export interface AttachmentOptions {
  /** The model accepts images (else images are only described). */
  vision: boolean;
  maxImageBytes?: number;
  /** The channel's own download (media by id, encrypted media); replaces the public download. */
  fetchMedia?: (attachment: InboundAttachment) => Promise<{ bytes: Uint8Array }>;
}

export interface PreparedMessage {
  text: string;
  images: ImageContent[];
}

function describe(attachment: InboundAttachment): string {
  const name = attachment.name ?? attachment.url?.split("/").pop()?.split("?")[0] ?? "unnamed";
  switch (attachment.kind) {
    case "voice":
      return attachment.transcript?.trim()
        ? `[voice message] ${attachment.transcript.trim()}`
        : "[voice message, no transcript]";
    case "image":
      return `[image: ${name}]`;
    case "video":
      return `[video: ${name}]`;
    default:
      return `[file: ${name}]`;
  }
}

async function loadImage(
  attachment: InboundAttachment,
  options: AttachmentOptions,
): Promise<ImageContent> {
  const maxBytes = options.maxImageBytes ?? MAX_IMAGE_BYTES;
  const { bytes } = options.fetchMedia
    ? await options.fetchMedia(attachment)
    : await fetchPublic(attachment.url ?? "", { maxBytes, contentTypePrefix: "image/" });
  if (bytes.length > maxBytes)
    throw new ClawboxError("MEDIA_INVALID", `image is ${bytes.length} bytes, over ${maxBytes}`);
  const { scaleImageToJpeg } = await import("../media/index.ts");
  const scaled = await scaleImageToJpeg(bytes, { label: "chat image" });
  return { type: "image", data: scaled.data.toString("base64"), mimeType: scaled.mimeType };
}

export async function prepareAttachments(
  message: InboundMessage,
  options: AttachmentOptions = { vision: false },
): Promise<PreparedMessage> {
  const lines: string[] = message.text.trim() ? [message.text.trim()] : [];
  const images: ImageContent[] = [];
  for (const attachment of message.attachments) {
    const reachable = attachment.url || (options.fetchMedia && attachment.mediaId);
    if (attachment.kind === "image" && reachable && options.vision) {
      try {
        images.push(await loadImage(attachment, options));
        continue;
      } catch {
        lines.push(`${describe(attachment)} (could not be loaded)`);
        continue;
      }
    }
    lines.push(describe(attachment));
  }
  return { text: lines.join("\n"), images };
}
