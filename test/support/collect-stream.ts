/**
 * Drains a provider stream into its events and the final done/error event. Used by the
 * provider tests, which all need the whole stream and a guaranteed final event.
 */
import type { Provider, ProviderRequest } from "../../src/providers/index.ts";
import type { ProviderEvent } from "../../src/providers/provider.ts";

export interface CollectedStream {
  events: ProviderEvent[];
  final: Extract<ProviderEvent, { type: "done" | "error" }>;
}

export async function collectStream(
  provider: Provider,
  request: ProviderRequest,
): Promise<CollectedStream> {
  const events: ProviderEvent[] = [];
  for await (const event of provider.stream(request)) events.push(event);
  const final = events.at(-1);
  if (!final || (final.type !== "done" && final.type !== "error"))
    throw new Error("no final event");
  return { events, final };
}
