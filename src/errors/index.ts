export {
  ClawboxError,
  type ClawboxErrorOptions,
  type ErrorCode,
  isClawboxError,
  toClawboxError,
} from "./clawbox-error.ts";
