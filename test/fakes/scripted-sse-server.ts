/**
 * A loopback HTTP server that answers each request with the next scripted step,
 * speaking real SSE: the fakes of the OpenAI and Anthropic APIs are built on it. Steps
 * can also inject faults: an HTTP error status with a body and headers, a hang (no
 * answer ever), or a connection dropped in the middle of a stream.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export interface RecordedRequest {
  path: string;
  headers: Record<string, string>;
  body: Record<string, unknown>;
}

export type Step =
  /** Sends these SSE events (each `data` JSON-encoded unless a string), then ends. */
  | {
      kind: "events";
      events: { event?: string; data: unknown }[];
      dropAfter?: number;
      /** After this many events, keep the stream open without ending it (a slow reply). */
      holdAfter?: number;
      /** Milliseconds between events (default 2). */
      delayMs?: number;
      /**
       * After this many events, reset the connection (TCP RST, as a crashed proxy or a
       * dropped NAT entry does) instead of finishing the stream.
       */
      resetAfter?: number;
    }
  | { kind: "status"; status: number; body: unknown; headers?: Record<string, string> }
  /** Sends `text` as the response body verbatim, with this content type (default SSE). */
  | { kind: "raw"; text: string; contentType?: string }
  | { kind: "hang" };

export interface ScriptedServer {
  url: string;
  requests: RecordedRequest[];
  /** Queues steps for the next requests, in order. */
  enqueue(...steps: Step[]): void;
  /** Answers a request whose key (from `keyOf`) matches before consulting the queue. */
  onKey(key: string, step: Step): void;
  close(): Promise<void>;
}

export async function startScriptedServer(
  keyOf: (headers: Record<string, string>) => string | undefined,
  fallback: (request: RecordedRequest) => Step,
  /** Answers a request the real API would reject (checked before any scripted step). */
  reject?: (request: RecordedRequest) => Step | undefined,
): Promise<ScriptedServer> {
  const queue: Step[] = [];
  const byKey = new Map<string, Step>();
  const requests: RecordedRequest[] = [];
  const server = createServer((req, res) => {
    void handle(req, res);
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(req.headers))
      if (typeof value === "string") headers[name] = value;
    let body: Record<string, unknown> = {};
    try {
      body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as Record<string, unknown>;
    } catch {
      body = {};
    }
    const recorded = { path: req.url ?? "/", headers, body };
    requests.push(recorded);
    const key = keyOf(headers);
    const step =
      reject?.(recorded) ??
      (key !== undefined ? byKey.get(key) : undefined) ??
      queue.shift() ??
      fallback(recorded);
    await answer(step, res);
  }

  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    enqueue: (...steps) => queue.push(...steps),
    onKey: (key, step) => byKey.set(key, step),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

async function answer(step: Step, res: ServerResponse): Promise<void> {
  if (step.kind === "hang") return;
  if (step.kind === "raw") {
    res.writeHead(200, { "content-type": step.contentType ?? "text/event-stream" });
    res.end(step.text);
    return;
  }
  if (step.kind === "status") {
    res.writeHead(step.status, { "content-type": "application/json", ...step.headers });
    res.end(typeof step.body === "string" ? step.body : JSON.stringify(step.body));
    return;
  }
  res.writeHead(200, {
    "content-type": "text/event-stream",
    "cache-control": "no-cache",
    connection: "keep-alive",
  });
  for (const [index, event] of step.events.entries()) {
    if (step.dropAfter !== undefined && index >= step.dropAfter) {
      // A half-close (FIN), not a reset: a reset can discard bytes the client has not
      // read yet on a loaded machine, and the test is about what was received. Bun's
      // fetch also drops body bytes still unread when a chunked body ends early, so the
      // client is given time to read what was sent first.
      await new Promise((resolve) => setTimeout(resolve, 50));
      res.socket?.end();
      return;
    }
    if (step.holdAfter !== undefined && index >= step.holdAfter) return;
    if (step.resetAfter !== undefined && index >= step.resetAfter) {
      // Give the client time to read what was sent, then reset: the test is about what
      // happens to a reply whose every byte arrived before the connection died.
      await new Promise((resolve) => setTimeout(resolve, 50));
      res.socket?.resetAndDestroy();
      return;
    }
    const data = typeof event.data === "string" ? event.data : JSON.stringify(event.data);
    res.write(`${event.event ? `event: ${event.event}\n` : ""}data: ${data}\n\n`);
    await new Promise((resolve) => setTimeout(resolve, step.delayMs ?? 2));
  }
  res.end();
}
