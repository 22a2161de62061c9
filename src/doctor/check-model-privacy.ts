/**
 * States where the private context (prompt, memory, conversation) can go: only the
 * local model, or also a cloud provider, and when (SPEC §9a, docs/SECURITY.md).
 */
import type { ModelsConfig } from "../config/index.ts";
import type { CheckResult } from "./doctor-check.ts";

export function checkModelPrivacy(models: ModelsConfig): CheckResult {
  const chain = [...new Set([models.primary, ...models.fallbacks])];
  const cloud = chain.filter((id) => {
    const kind = models.providers[id]?.kind;
    return kind !== undefined && kind !== "local";
  });
  const name = "model privacy";
  if (cloud.length === 0)
    return { name, status: "ok", message: "local only: the conversation never leaves the box" };
  if (models.localOnly)
    return {
      name,
      status: "ok",
      message: `local only (models.localOnly): cloud models ${cloud.join(", ")} are never called`,
    };
  if (cloud.includes(models.primary))
    return {
      name,
      status: "ok",
      message: `the primary model ${models.primary} is a cloud model: every turn, with memory and workspace files, is sent to it`,
    };
  return {
    name,
    status: "ok",
    message: `local first; on a transient or capacity error a turn (with memory and workspace files) falls back to cloud model ${cloud.join(", ")}`,
    fix: "set models.localOnly to true to keep everything on the box",
  };
}
