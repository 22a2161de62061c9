/** Request bodies above the limit are refused with 413 before they are read whole. */
import { bodyLimit } from "hono/body-limit";
import { jsonError } from "./json-error.ts";

export const MAX_BODY_BYTES = 256 * 1024;

export const limitBody = (maxSize = MAX_BODY_BYTES) =>
  bodyLimit({
    maxSize,
    onError: (c) => jsonError(c, 413, "HTTP_BODY_TOO_LARGE", `body larger than ${maxSize} bytes`),
  });
