/**
 * `clawbox doctor`: checks of the home, config, database, workspace and model, each a
 * plain-words result with the fix to run. Checks never change anything.
 */
export { checkBackups } from "./check-backups.ts";
export { checkConfig } from "./check-config.ts";
export { checkConsolePort } from "./check-console-port.ts";
export { checkDatabase } from "./check-database.ts";
export { checkHome } from "./check-home.ts";
export { checkModelRecommendation, checkModels } from "./check-model.ts";
export { checkModelPrivacy } from "./check-model-privacy.ts";
export { checkWebhookToken } from "./check-webhook-token.ts";
export { checkWorkspace } from "./check-workspace.ts";
export { type CheckResult, type CheckStatus, formatCheck } from "./doctor-check.ts";
