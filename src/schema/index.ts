/**
 * The one way src/ builds schemas: zod's functional "mini" API, with messages in plain
 * words. Classic zod gives every schema node dozens of method closures and loads its
 * locale at import; on the start path that cost about 6 MB of the 45 MB RSS budget
 * (docs/BENCHMARKS.md, "zod/mini"). Mini builds the same validators from the same core,
 * so parsing and issues are unchanged; only the spelling differs
 * (`z.optional(z.string())` rather than `z.string().optional()`).
 * Import `z` from here, never from the zod package: this module installs the messages
 * (mini ships without a locale and would say only "Invalid input"); see
 * plain-messages.ts for their form ("port must be a number", "host is missing").
 */
import * as z from "zod/mini";
import en from "zod/v4/locales/en.js";
import { plainMessage, type RawIssue } from "./plain-messages.ts";

const english = en().localeError;
z.config({
  localeError: (issue) => plainMessage(issue as RawIssue) ?? english(issue),
});

export { plainMessage, z };
