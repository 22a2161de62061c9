/** One line of `clawbox doctor`: what was checked, how it went, and the fix. */
export type CheckStatus = "ok" | "warn" | "fail";

export interface CheckResult {
  name: string;
  status: CheckStatus;
  message: string;
  fix?: string;
}

export function formatCheck(result: CheckResult): string {
  const tag = result.status.padEnd(4);
  return `${tag}  ${result.name}: ${result.message}${result.fix && result.status !== "ok" ? `\n      fix: ${result.fix}` : ""}`;
}
