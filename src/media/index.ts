/**
 * Images for the model and the chats: sniff what bytes are, scale to <= 1200 px JPEG.
 * The image libraries load on first use (see scale-image.ts), never at startup.
 */
export {
  DEFAULT_MAX_SIDE,
  fitWithin,
  type ScaledImage,
  type ScaleImageOptions,
  scaleImageToJpeg,
} from "./scale-image.ts";
export { describeNonImage, type ImageMimeType, sniffImageType } from "./sniff-image-type.ts";
