/**
 * A systemd-style notify socket for tests and benchmarks: binds a unix datagram socket
 * (path or abstract `@name`) through libc with `bun:ffi` and collects the datagrams it
 * receives, as systemd would. Polls with MSG_DONTWAIT so it never blocks the event loop.
 */
import { dlopen, FFIType, read } from "bun:ffi";
import { rmSync } from "node:fs";
import { unixAddress } from "../../src/system/unix-datagram.ts";

const AF_UNIX = 1;
const SOCK_DGRAM = 2;
const SOCK_CLOEXEC = 0o2000000;
const MSG_DONTWAIT = 0x40;

function openLibc() {
  return dlopen("libc.so.6", {
    socket: { args: [FFIType.i32, FFIType.i32, FFIType.i32], returns: FFIType.i32 },
    bind: { args: [FFIType.i32, FFIType.ptr, FFIType.u32], returns: FFIType.i32 },
    recv: { args: [FFIType.i32, FFIType.ptr, FFIType.u64, FFIType.i32], returns: FFIType.i64 },
    close: { args: [FFIType.i32], returns: FFIType.i32 },
    __errno_location: { args: [], returns: FFIType.ptr },
  }).symbols;
}

export interface NotifySocket {
  /** The value to put in NOTIFY_SOCKET. */
  readonly path: string;
  /** Every datagram received so far, in order. */
  readonly messages: string[];
  /** Resolves with the first message (new or already received) containing `text`. */
  waitFor(text: string, timeoutMs?: number): Promise<string>;
  close(): void;
}

export function bindNotifySocket(path: string): NotifySocket {
  const libc = openLibc();
  const target = unixAddress(path);
  if (!target) throw new Error(`bad notify socket address: ${path}`);
  if (!path.startsWith("@")) rmSync(path, { force: true });
  const fd = libc.socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (fd < 0 || libc.bind(fd, target.addr, target.length) !== 0) {
    const where = libc.__errno_location();
    throw new Error(`cannot bind ${path}: errno ${where ? read.i32(where, 0) : "?"}`);
  }
  const messages: string[] = [];
  const buffer = new Uint8Array(4096);
  let open = true;
  const drain = () => {
    while (open) {
      const n = Number(libc.recv(fd, buffer, buffer.length, MSG_DONTWAIT));
      if (n < 0) return;
      messages.push(Buffer.from(buffer.subarray(0, n)).toString("utf8"));
    }
  };
  const poller = setInterval(drain, 2);
  return {
    path,
    messages,
    waitFor(text, timeoutMs = 5000) {
      const started = Date.now();
      return new Promise((resolve, reject) => {
        const check = () => {
          drain();
          const hit = messages.find((m) => m.includes(text));
          if (hit !== undefined) return resolve(hit);
          if (!open) return reject(new Error(`notify socket closed before "${text}"`));
          if (Date.now() - started > timeoutMs) {
            return reject(
              new Error(`no "${text}" within ${timeoutMs} ms (got ${JSON.stringify(messages)})`),
            );
          }
          setTimeout(check, 1);
        };
        check();
      });
    },
    close() {
      if (!open) return;
      drain();
      open = false;
      clearInterval(poller);
      libc.close(fd);
      if (!path.startsWith("@")) rmSync(path, { force: true });
    },
  };
}
