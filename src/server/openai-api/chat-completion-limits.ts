/**
 * The sizes a `/v1/chat/completions` request may have. The body cap is applied before the
 * body is read (with the server), the others when it is read (with the routes).
 */
export const MAX_TEXT_CHARS = 100_000;
export const MAX_IMAGES = 4;
export const MAX_IMAGE_BASE64 = 8 * 1024 * 1024;
/** The largest body: four images, the text, and the history the client sends along. */
export const MAX_CHAT_COMPLETION_BYTES = MAX_IMAGES * MAX_IMAGE_BASE64 + 512 * 1024;
