/**
 * How eagerly clawbox compiles hot JavaScript. JavaScriptCore tiers hot code up from its
 * interpreter through the baseline JIT and the optimizing compilers (DFG, FTL), whose
 * working memory, machine code and the compilers' own pages of the binary stay in the
 * process. On this box a turn's own JavaScript is a few milliseconds next to the model,
 * so JavaScriptCore's tier-up thresholds are scaled by SERVICE_JIT_POLICY: a million
 * times, which keeps code in the interpreter (a function would need hundreds of millions
 * of calls to tier up). Native work (SQLite, JSON, HTTP, crypto, regular expressions,
 * llama.cpp, onnxruntime) is unaffected.
 *
 * The compiled binary starts with it (`compile.jitPolicy` in scripts/build-compile.ts),
 * so start-up never compiles either; `clawbox run` from source sets it at READY
 * (`Bun.unsafe.setJITPolicy`). Measured (docs/BENCHMARKS.md, "The JIT policy"): READY
 * 116 → 85 ms and RSS at READY 42.3 → 35.9 MB; after 1,000 chat turns 52.5 → 46–48 MB
 * idle; the box's CPU per turn unchanged (6.3 → 6.1 ms). The earlier scale, 1,000, still
 * let the hottest code reach the DFG and grew RSS with the binary's compiler pages.
 * Without the Bun API (another runtime) this does nothing.
 */

export const SERVICE_JIT_POLICY = 1_000_000;

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
