/**
 * POSTs a large body to a real server a chunk at a time and stops as soon as the answer
 * arrives, reporting how much had been sent by then: how a test sees that a guard
 * answered before the body was read. node:http, so any header (Host included) is sent
 * as given.
 */
import { request } from "node:http";

export interface Sent {
  status: number;
  /** Body bytes written before the answer came. */
  bytesSent: number;
  /** The answer's body (read after sending stopped). */
  body: string;
}

/**
 * POSTs `total` bytes (chunked unless `declare`), a chunk every `everyMs`, stopping as
 * soon as the response arrives; `stall` stops sending half-way and never ends the body.
 */
export function postStreamedBody(
  url: string,
  options: {
    total: number;
    declare?: boolean;
    stall?: boolean;
    type?: string;
    everyMs?: number;
    headers?: Record<string, string>;
  },
): Promise<Sent> {
  return new Promise((resolve, reject) => {
    const chunk = Buffer.alloc(64 * 1024, "a");
    chunk.write("secret=");
    let sent = 0;
    let answered = false;
    const req = request(url, {
      method: "POST",
      headers: {
        "Content-Type": options.type ?? "application/x-www-form-urlencoded",
        ...(options.declare ? { "Content-Length": String(options.total) } : {}),
        ...options.headers,
      },
    });
    req.on("response", (res) => {
      answered = true;
      const bytesSent = sent;
      let body = "";
      res.on("data", (d: Buffer) => {
        body += d.toString("utf8");
      });
      const done = () => {
        resolve({ status: res.statusCode ?? 0, bytesSent, body });
        req.destroy();
      };
      res.on("end", done);
      res.on("error", done);
    });
    req.on("error", (error) => {
      if (!answered) reject(error);
    });
    const pump = () => {
      if (answered) return;
      if (options.stall && sent >= options.total / 2) return;
      if (sent >= options.total) return void req.end();
      sent += chunk.length;
      req.write(chunk);
      setTimeout(pump, options.everyMs ?? 1);
    };
    pump();
  });
}
