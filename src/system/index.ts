/**
 * What the box itself offers every area: crash-safe writes, bounded child processes,
 * logging with redaction, paths of the home, native modules loaded lazily, systemd
 * notifications and the clock. Depends on errors and schema only.
 */
export {
  type AtomicWriteOptions,
  commitFileAtomic,
  removeFileDurable,
  renameDurable,
  writeFileAtomic,
  writeStreamAtomic,
} from "./atomic-write.ts";
export { type BootClock, systemBootClock } from "./boot-clock.ts";
export {
  type BoundedProcessOptions,
  type BoundedProcessResult,
  runBoundedProcess,
} from "./bounded-process.ts";
export { CLOCK_HINT, clockHint } from "./clock-hint.ts";
export { formatBytes } from "./format-bytes.ts";
export { createIdleTrimmer, type IdleTrimmer, type IdleTrimOptions } from "./idle-trim.ts";
export { SERVICE_JIT_POLICY, useServiceJitPolicy } from "./jit-policy.ts";
export { type LogEntry, LogRing } from "./log-ring.ts";
export {
  createLogger,
  type Logger,
  type LoggerOptions,
  type LogLevel,
  silentLogger,
} from "./logger.ts";
export { importNative, type NativeModuleName, nativeModulePath } from "./native-module.ts";
export { nearestWord } from "./nearest-word.ts";
export { type DumpableResult, makeNonDumpable } from "./non-dumpable.ts";
export { type HomePaths, homePaths, resolveHome } from "./paths.ts";
export {
  addressesToHold,
  blocks,
  describePortHolder,
  hostForUrl,
  type PortHolder,
  portHolders,
} from "./port-holders.ts";
export { processAlive } from "./process-alive.ts";
export { collectSecrets, redact } from "./redact.ts";
export { type RuntimeLayout, runtimeLayout } from "./runtime-layout.ts";
export {
  readStatusSnapshot,
  type StatusSnapshot,
  writeStatusSnapshot,
} from "./status-snapshot.ts";
export {
  createSystemdNotifier,
  type SystemdNotifier,
  type SystemdNotifierOptions,
  watchdogIntervalMs,
} from "./systemd-notify.ts";
