/**
 * A scripted model provider for tests and benchmarks (never shipped: it lives under
 * test/, and its kind is a real one, "openai" by default, so production has no "fake"
 * kind): each model call takes the next step of the script (or
 * asks a function for it) and streams it through the same events as a real provider.
 * Steps can stream text/thinking, call tools, fail with a classified error, hang until
 * aborted, or drop mid-stream. Every request is recorded for assertions.
 */
import { ClawboxError, type ErrorCode } from "../../src/errors/index.ts";
import {
  type AssistantMessage,
  emptyUsage,
  type Message,
  messageText,
  type ToolCall,
  type Usage,
} from "../../src/messages/index.ts";
import type { Provider, ProviderKind, ProviderRequest } from "../../src/providers/index.ts";
import type { ProviderEvent } from "../../src/providers/provider.ts";

export interface FakeStep {
  text?: string;
  thinking?: string;
  toolCalls?: { name: string; arguments: Record<string, unknown>; id?: string }[];
  /** End the call with this classified error (after streaming any text). */
  error?: { code: ErrorCode; message: string; details?: Record<string, unknown> };
  /** Never answer: wait until the request is aborted. */
  hang?: boolean;
  usage?: Partial<Usage>;
  /** Split text into deltas of this many characters (default 4). */
  chunkSize?: number;
  /** Final stop reason (default "toolUse" with tool calls, else "stop"), e.g. "length". */
  stopReason?: "stop" | "length" | "toolUse";
  /** Milliseconds between deltas. */
  delayMs?: number;
}

export type FakeScript = FakeStep[] | ((request: ProviderRequest, call: number) => FakeStep);

export interface FakeProviderOptions {
  id?: string;
  model?: string;
  contextWindow?: number;
  /** What it stands in for (default "openai": a cloud model to the fallback policy). */
  kind?: ProviderKind;
  script: FakeScript;
}

export interface FakeProvider extends Provider {
  /** Requests received so far, in order. */
  readonly requests: ProviderRequest[];
}

function estimateTokens(request: ProviderRequest): number {
  let chars = request.systemPrompt.length;
  for (const message of request.messages) chars += messageText(message as Message).length;
  return Math.ceil(chars / 4);
}

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve) => {
    if (ms <= 0 || signal?.aborted) return resolve();
    const timer = setTimeout(resolve, ms);
    const onAbort = () => {
      clearTimeout(timer);
      resolve();
    };
    signal?.addEventListener("abort", onAbort, { once: true });
  });

export function createFakeProvider(options: FakeProviderOptions): FakeProvider {
  const id = options.id ?? "fake";
  const model = options.model ?? "fake-model";
  const requests: ProviderRequest[] = [];
  let calls = 0;

  async function* stream(request: ProviderRequest): AsyncIterable<ProviderEvent> {
    requests.push(request);
    const call = calls++;
    const script = options.script;
    const step: FakeStep =
      typeof script === "function"
        ? script(request, call)
        : (script[call] ?? { text: "(end of script)" });
    const message: AssistantMessage = {
      role: "assistant",
      content: [],
      api: "fake",
      provider: id,
      model,
      usage: emptyUsage(),
      stopReason: "stop",
      timestamp: Date.now(),
    };
    const finish = () => {
      const input = step.usage?.input ?? estimateTokens(request);
      const output =
        step.usage?.output ??
        Math.ceil(((step.text ?? "").length + (step.thinking ?? "").length) / 4);
      message.usage = {
        input,
        output,
        cacheRead: step.usage?.cacheRead ?? 0,
        cacheWrite: step.usage?.cacheWrite ?? 0,
        totalTokens: input + output + (step.usage?.cacheRead ?? 0) + (step.usage?.cacheWrite ?? 0),
      };
    };
    const aborted = (): ProviderEvent => {
      finish();
      message.stopReason = "aborted";
      message.errorMessage = "request aborted";
      return { type: "error", message, error: new ClawboxError("ABORTED", "request aborted") };
    };
    yield { type: "start", model };
    if (step.hang) {
      await new Promise<void>((resolve) => {
        if (request.signal?.aborted) return resolve();
        request.signal?.addEventListener("abort", () => resolve(), { once: true });
      });
      yield aborted();
      return;
    }
    const size = Math.max(1, step.chunkSize ?? 4);
    if (step.thinking) {
      message.content.push({ type: "thinking", thinking: step.thinking });
      yield { type: "thinking_delta", delta: step.thinking };
    }
    if (step.text) {
      const block = { type: "text" as const, text: "" };
      message.content.push(block);
      for (let i = 0; i < step.text.length; i += size) {
        if (request.signal?.aborted) {
          yield aborted();
          return;
        }
        const delta = step.text.slice(i, i + size);
        block.text += delta;
        yield { type: "text_delta", delta };
        if (step.delayMs) await sleep(step.delayMs, request.signal);
      }
    }
    if (step.error) {
      finish();
      message.stopReason = "error";
      message.errorMessage = step.error.message;
      yield {
        type: "error",
        message,
        error: new ClawboxError(step.error.code, step.error.message, {
          ...(step.error.details ? { details: step.error.details } : {}),
        }),
      };
      return;
    }
    for (const [index, call_] of (step.toolCalls ?? []).entries()) {
      const toolCall: ToolCall = {
        type: "toolCall",
        id: call_.id ?? `call_${call}_${index}`,
        name: call_.name,
        arguments: call_.arguments,
      };
      message.content.push(toolCall);
      yield { type: "toolcall", toolCall };
    }
    if (request.signal?.aborted) {
      yield aborted();
      return;
    }
    finish();
    message.stopReason = step.stopReason ?? (step.toolCalls?.length ? "toolUse" : "stop");
    yield { type: "done", message };
  }

  return {
    id,
    kind: options.kind ?? "openai",
    model,
    requests,
    contextWindow: async () => options.contextWindow ?? 8192,
    stream,
    state: () => "ready",
  };
}
