/** Path of the shared stories260K model, and a reason to skip when it is absent. */
import { existsSync } from "node:fs";
import { join } from "node:path";

export const STORIES_MODEL = join(
  import.meta.dirname,
  "..",
  "..",
  "..",
  "shared",
  "models",
  "stories260K.gguf",
);
export const HAVE_STORIES = existsSync(STORIES_MODEL);
if (!HAVE_STORIES)
  console.warn(`skipping model tests: ${STORIES_MODEL} is absent (../shared/models)`);
