export {
  ClawboxError,
  type ClawboxErrorOptions,
  type ErrorCode,
  type HttpErrorCode,
  isClawboxError,
  toClawboxError,
} from "./clawbox-error.ts";
export { errorMessage } from "./error-message.ts";
