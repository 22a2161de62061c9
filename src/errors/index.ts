/**
 * The one error class (`ClawboxError`) and the one list of error codes callers branch
 * on, plus `errorMessage` for the text of anything thrown. The lowest area: it imports
 * nothing, so every area may use it.
 */
export {
  ClawboxError,
  type ClawboxErrorOptions,
  type ErrorCode,
  type HttpErrorCode,
  isClawboxError,
  toClawboxError,
} from "./clawbox-error.ts";
export { errorMessage } from "./error-message.ts";
