/**
 * The one way src/ builds schemas: zod's functional "mini" API, with English messages.
 * Classic zod gives every schema node dozens of method closures and loads its locale at
 * import; on the start path that cost about 6 MB of the 45 MB RSS budget
 * (docs/BENCHMARKS.md, "zod/mini"). Mini builds the same validators from the same core,
 * so parsing, issues and messages are unchanged; only the spelling differs
 * (`z.optional(z.string())` rather than `z.string().optional()`).
 * Import `z` from here, never from the zod package: this module installs the English messages
 * (mini ships without a locale and would say only "Invalid input").
 */
import * as z from "zod/mini";
import en from "zod/v4/locales/en.js";

z.config(en());

export { z };
