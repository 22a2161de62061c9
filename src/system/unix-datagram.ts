/**
 * Sends one datagram to a unix socket through libc (`socket` + `sendto`) with `bun:ffi`:
 * neither Node nor Bun offers unix datagram sockets, and systemd's notify protocol needs
 * exactly that. A leading `@` in the path names an abstract socket (Linux only).
 * Never throws: the result says whether it worked and, if not, why (errno).
 */
import { dlopen, FFIType, read } from "bun:ffi";

const AF_UNIX = 1;
const SOCK_DGRAM = 2;
const SOCK_CLOEXEC = 0o2000000;
const MSG_NOSIGNAL = 0x4000;
/** sizeof(struct sockaddr_un): 2 bytes of family + 108 bytes of path. */
const SOCKADDR_UN_SIZE = 110;
const SUN_PATH_MAX = 107;

type Libc = ReturnType<typeof openLibc>;

function openLibc() {
  return dlopen("libc.so.6", {
    socket: { args: [FFIType.i32, FFIType.i32, FFIType.i32], returns: FFIType.i32 },
    sendto: {
      args: [FFIType.i32, FFIType.ptr, FFIType.u64, FFIType.i32, FFIType.ptr, FFIType.u32],
      returns: FFIType.i64,
    },
    close: { args: [FFIType.i32], returns: FFIType.i32 },
    __errno_location: { args: [], returns: FFIType.ptr },
  }).symbols;
}

let libc: Libc | undefined;

export type SendResult = { ok: true } | { ok: false; reason: string };

/** Encodes `path` as a sockaddr_un; undefined when the path cannot be one. */
export function unixAddress(path: string): { addr: Uint8Array; length: number } | undefined {
  const abstract = path.startsWith("@");
  const name = Buffer.from(abstract ? path.slice(1) : path, "utf8");
  if (name.length === 0 || name.length > SUN_PATH_MAX || (!abstract && !path.startsWith("/"))) {
    return undefined;
  }
  const addr = new Uint8Array(SOCKADDR_UN_SIZE);
  new DataView(addr.buffer).setUint16(0, AF_UNIX, true);
  // Abstract names start with a NUL byte and are not NUL-terminated.
  addr.set(name, abstract ? 3 : 2);
  return { addr, length: abstract ? 3 + name.length : 2 + name.length + 1 };
}

function errno(lib: Libc): number {
  const where = lib.__errno_location();
  return where ? read.i32(where, 0) : 0;
}

export function sendUnixDatagram(path: string, payload: string): SendResult {
  const target = unixAddress(path);
  if (!target) return { ok: false, reason: `not a usable unix socket address: "${path}"` };
  try {
    libc ??= openLibc();
  } catch (error) {
    return { ok: false, reason: `libc not loadable: ${(error as Error).message}` };
  }
  const fd = libc.socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return { ok: false, reason: `socket() failed, errno ${errno(libc)}` };
  const data = Buffer.from(payload, "utf8");
  const sent = libc.sendto(fd, data, data.length, MSG_NOSIGNAL, target.addr, target.length);
  const failure = Number(sent) < 0 ? errno(libc) : 0;
  libc.close(fd);
  if (Number(sent) < 0) return { ok: false, reason: `sendto ${path} failed, errno ${failure}` };
  return { ok: true };
}
