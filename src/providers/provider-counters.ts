/**
 * Running counters behind `Provider.stats()`: requests, errors and token sums, plus
 * the last request and the last error (code and message only, never secrets).
 */
import type { ClawboxError } from "../errors/index.ts";
import type { StopReason, Usage } from "../messages/index.ts";
import type { ProviderStats, RequestStats } from "./provider.ts";

export class ProviderCounters {
  private requests = 0;
  private errors = 0;
  private inputTokens = 0;
  private cacheReadTokens = 0;
  private cacheWriteTokens = 0;
  private outputTokens = 0;
  private lastRequest: RequestStats | undefined;
  private lastError: ProviderStats["lastError"];

  succeeded(usage: Usage, stopReason: StopReason, startedAt: number): void {
    this.record(usage, stopReason, startedAt);
  }

  failed(error: ClawboxError, usage: Usage, startedAt: number): void {
    this.errors += 1;
    this.lastError = { code: error.code, message: error.message, at: Date.now() };
    this.record(usage, error.code === "ABORTED" ? "aborted" : "error", startedAt);
  }

  snapshot(extra: Partial<ProviderStats> = {}): ProviderStats {
    return {
      requests: this.requests,
      errors: this.errors,
      inputTokens: this.inputTokens,
      cacheReadTokens: this.cacheReadTokens,
      cacheWriteTokens: this.cacheWriteTokens,
      outputTokens: this.outputTokens,
      ...(this.lastRequest ? { lastRequest: { ...this.lastRequest } } : {}),
      ...(this.lastError ? { lastError: { ...this.lastError } } : {}),
      ...extra,
    };
  }

  private record(usage: Usage, stopReason: StopReason, startedAt: number): void {
    this.requests += 1;
    this.inputTokens += usage.input;
    this.cacheReadTokens += usage.cacheRead;
    this.cacheWriteTokens += usage.cacheWrite;
    this.outputTokens += usage.output;
    this.lastRequest = {
      inputTokens: usage.input,
      cacheReadTokens: usage.cacheRead,
      cacheWriteTokens: usage.cacheWrite,
      outputTokens: usage.output,
      durationMs: Date.now() - startedAt,
      stopReason,
    };
  }
}
