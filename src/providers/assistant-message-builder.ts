/**
 * Accumulates a streamed reply into one AssistantMessage. Every provider builds its
 * final (and error) message here so all of them record the same shape: consecutive
 * deltas merge into one block, tool calls keep their order, usage always has a cost.
 */
import type { ClawboxError } from "../errors/index.ts";
import type { AssistantMessage, StopReason, ToolCall, Usage } from "../messages/index.ts";
import type { ProviderEvent } from "./provider.ts";
import { type CostPerMillion, makeUsage } from "./usage-cost.ts";

export class AssistantMessageBuilder {
  private readonly content: AssistantMessage["content"] = [];
  private counts = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 };

  constructor(
    private readonly provider: string,
    private readonly model: string,
    private readonly api: string,
    private readonly prices?: CostPerMillion,
  ) {}

  appendText(delta: string): void {
    if (delta === "") return;
    const last = this.content.at(-1);
    if (last?.type === "text") last.text += delta;
    else this.content.push({ type: "text", text: delta });
  }

  appendThinking(delta: string, signature?: string): void {
    const last = this.content.at(-1);
    if (last?.type === "thinking") {
      last.thinking += delta;
      if (signature) last.signature = (last.signature ?? "") + signature;
    } else {
      this.content.push({ type: "thinking", thinking: delta, ...(signature ? { signature } : {}) });
    }
  }

  /** An encrypted (redacted) thinking block, kept whole so it can be replayed. */
  addRedactedThinking(data: string): void {
    this.content.push({ type: "thinking", thinking: "", signature: data, redacted: true });
  }

  addToolCall(call: ToolCall): void {
    this.content.push(call);
  }

  /** True while nothing of the reply (text, thinking, tool calls) has arrived. */
  isEmpty(): boolean {
    return this.content.length === 0;
  }

  hasToolCalls(): boolean {
    return this.content.some((block) => block.type === "toolCall");
  }

  /** Sets token counts; fields left out keep their previous value. */
  setUsage(
    counts: Partial<{ input: number; output: number; cacheRead: number; cacheWrite: number }>,
  ): void {
    this.counts = { ...this.counts, ...counts };
  }

  usage(): Usage {
    return makeUsage(this.counts, this.prices);
  }

  build(stopReason: StopReason, errorMessage?: string): AssistantMessage {
    return {
      role: "assistant",
      content: this.content.map((block) => ({ ...block })),
      api: this.api,
      provider: this.provider,
      model: this.model,
      usage: this.usage(),
      stopReason,
      ...(errorMessage !== undefined ? { errorMessage } : {}),
      timestamp: Date.now(),
    };
  }

  doneEvent(stopReason: StopReason): ProviderEvent {
    return { type: "done", message: this.build(stopReason) };
  }

  errorEvent(error: ClawboxError): ProviderEvent {
    const stopReason: StopReason = error.code === "ABORTED" ? "aborted" : "error";
    return { type: "error", message: this.build(stopReason, error.message), error };
  }
}
