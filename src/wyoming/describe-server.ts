/**
 * The console's Test for the voice server: connect where the settings say, send
 * `describe` as Home Assistant does (homeassistant/components/wyoming/data.py
 * `load_wyoming_info`: one second for the answer) and read the `info` header line.
 */
import { connect } from "node:net";
import type { WyomingConfig } from "../config/index.ts";
import { encodeEvent } from "./wyoming-event.ts";

const TIMEOUT_MS = 2000;

export function describeServer(
  config: Pick<WyomingConfig, "enabled" | "host" | "port">,
): Promise<{ ok: boolean; message: string }> {
  if (!config.enabled)
    return Promise.resolve({ ok: false, message: "Turn it on and restart the service first." });
  const host = config.host === "0.0.0.0" ? "127.0.0.1" : config.host === "::" ? "::1" : config.host;
  return new Promise((resolve) => {
    let text = "";
    const done = (result: { ok: boolean; message: string }) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(result);
    };
    const socket = connect({ host, port: config.port }, () =>
      socket.write(encodeEvent({ type: "describe", data: {} })),
    );
    const timer = setTimeout(
      () => done({ ok: false, message: `No answer from ${host}:${config.port} within 2 s.` }),
      TIMEOUT_MS,
    );
    socket.on("data", (chunk) => {
      text += chunk.toString("utf8");
      const line = text.split("\n")[0] ?? "";
      if (!text.includes("\n")) return;
      const ok = /"type"\s*:\s*"info"/.test(line);
      done(
        ok
          ? {
              ok: true,
              message: `The voice server at ${host}:${config.port} answered as Home Assistant expects.`,
            }
          : {
              ok: false,
              message: `${host}:${config.port} answered something else: ${line.slice(0, 120)}`,
            },
      );
    });
    socket.on("error", (error) =>
      done({
        ok: false,
        message: `Nothing answers at ${host}:${config.port} (${error.message}): is the service running with these settings? Changes apply after a restart.`,
      }),
    );
    socket.on("close", () =>
      done({
        ok: false,
        message: `${host}:${config.port} closed the connection: is this machine's address in the allowed addresses?`,
      }),
    );
  });
}
