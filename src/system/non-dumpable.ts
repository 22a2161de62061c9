/**
 * Makes the service non-dumpable (`prctl(PR_SET_DUMPABLE, 0)`, Linux): its
 * `/proc/<pid>/environ`, `mem`, `maps` and `fd/` become root's, so a command the service
 * runs (`exec`, an MCP server, a camera helper), which has the same uid, cannot read the
 * service's environment (`cat /proc/$PPID/environ` printed `CLAWBOX_TOKEN` and any key
 * passed by environment) nor its memory, and no core dump is written. Children are
 * dumpable again after their own execve. Through `bun:ffi`, already loaded for
 * systemd's notify socket. Never throws: the result says whether it worked.
 */
import { dlopen, FFIType } from "bun:ffi";

const PR_SET_DUMPABLE = 4;
const PR_GET_DUMPABLE = 3;

export type DumpableResult = { ok: true } | { ok: false; reason: string };

function prctl() {
  return dlopen("libc.so.6", {
    prctl: {
      args: [FFIType.i32, FFIType.u64, FFIType.u64, FFIType.u64, FFIType.u64],
      returns: FFIType.i32,
    },
  });
}

/** Sets this process non-dumpable; `{ok: false}` off Linux or when libc refuses. */
export function makeNonDumpable(): DumpableResult {
  if (process.platform !== "linux") return { ok: false, reason: "not Linux" };
  let lib: ReturnType<typeof prctl> | undefined;
  try {
    lib = prctl();
    if (lib.symbols.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) !== 0)
      return { ok: false, reason: "prctl(PR_SET_DUMPABLE) failed" };
    if (lib.symbols.prctl(PR_GET_DUMPABLE, 0, 0, 0, 0) !== 0)
      return { ok: false, reason: "the process is still dumpable" };
    return { ok: true };
  } catch (error) {
    return { ok: false, reason: `libc not loadable: ${(error as Error).message}` };
  } finally {
    lib?.close();
  }
}
