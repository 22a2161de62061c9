/**
 * Memory's contribution to `clawbox doctor`: sqlite-vec, the embedding model, the index
 * and the MEMORY.md startup budget, each as ok / warn / fail with a fix.
 */
import type { MemoryService } from "./memory-service.ts";

export interface DoctorCheck {
  name: string;
  status: "ok" | "warn" | "fail";
  message: string;
  fix?: string;
}

export async function memoryDoctorChecks(
  memory: MemoryService,
  budgetChars?: number,
): Promise<DoctorCheck[]> {
  const checks: DoctorCheck[] = [];
  let status: Awaited<ReturnType<MemoryService["status"]>>;
  try {
    status = await memory.status();
  } catch (error) {
    return [{ name: "memory", status: "fail", message: `memory status failed: ${String(error)}` }];
  }
  if (!status.enabled)
    return [{ name: "memory", status: "ok", message: "memory disabled in config" }];
  checks.push(
    status.sqliteVec
      ? {
          name: "memory.sqlite-vec",
          status: "ok",
          message: `sqlite-vec ${status.sqliteVec} loaded`,
        }
      : {
          name: "memory.sqlite-vec",
          status: "warn",
          message: "sqlite-vec not loaded: memory search is keyword-only",
          fix: "reinstall clawbox or set CLAWBOX_SQLITE_VEC to the vec0.so path",
        },
  );
  checks.push(
    status.mode === "hybrid" && status.model
      ? {
          name: "memory.embedding",
          status: "ok",
          message: `embedding model ${status.model.name} (${status.model.dimension} dims)`,
        }
      : {
          name: "memory.embedding",
          status: "warn",
          message: `memory search is keyword-only: ${status.reason ?? "no embedding model"}`,
          ...(status.fix ? { fix: status.fix } : {}),
        },
  );
  const pending = status.chunks - status.embeddedChunks;
  checks.push({
    name: "memory.index",
    status: status.mode === "hybrid" && pending > 0 ? "warn" : "ok",
    message: `${status.files} file(s), ${status.chunks} chunk(s), ${status.embeddedChunks} with vectors, ${status.recalls} recall(s) logged`,
    ...(status.mode === "hybrid" && pending > 0 ? { fix: "clawbox memory index" } : {}),
  });
  const budget = memory.startupBudget(budgetChars);
  checks.push(
    budget.truncated
      ? {
          name: "memory.startup-budget",
          status: "warn",
          message: `${budget.file} is truncated at session start: ${budget.injectedChars} of ${budget.rawChars} characters injected`,
          ...(budget.advice ? { fix: budget.advice } : {}),
        }
      : {
          name: "memory.startup-budget",
          status: "ok",
          message: budget.file
            ? `${budget.file} fits the startup budget (${budget.rawChars}/${budget.budgetChars} characters)`
            : "no MEMORY.md yet",
        },
  );
  return checks;
}
