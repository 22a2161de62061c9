/**
 * How eagerly the long-running service compiles hot JavaScript. JavaScriptCore tiers
 * hot code up through optimizing compilers (DFG, FTL) whose working memory and machine
 * code stay in the process: after 1,000 chat turns that was ≈ 15 MB of RSS that never
 * came back (docs/BENCHMARKS.md, rss-after-use). On this box a turn's own JavaScript is
 * a few milliseconds next to the model, so the service scales JavaScriptCore's tier-up
 * thresholds by SERVICE_JIT_POLICY (`Bun.unsafe.setJITPolicy`): code runs in the
 * interpreter unless it is extremely hot. Native work (SQLite, JSON, HTTP, llama.cpp,
 * onnxruntime) is unaffected. Without the Bun API (another runtime) this does nothing.
 */

export const SERVICE_JIT_POLICY = 1000;

interface BunUnsafe {
  setJITPolicy?(scale: number): void;
}

/** Applies the service's JIT policy to this thread's VM; false when the runtime has no such knob. */
export function useServiceJitPolicy(scale = SERVICE_JIT_POLICY): boolean {
  const unsafe = (globalThis as { Bun?: { unsafe?: BunUnsafe } }).Bun?.unsafe;
  if (typeof unsafe?.setJITPolicy !== "function") return false;
  unsafe.setJITPolicy(scale);
  return true;
}
