/**
 * The default workspace files, embedded as strings so they ship inside the compiled
 * binary. Keys are the file names written by `seedWorkspace`.
 */
import { AGENTS_MD } from "./agents.ts";
import { BOOTSTRAP_MD } from "./bootstrap.ts";
import { HEARTBEAT_MD } from "./heartbeat.ts";
import { IDENTITY_MD } from "./identity.ts";
import { SOUL_MD } from "./soul.ts";
import { TOOLS_MD } from "./tools.ts";
import { USER_MD } from "./user.ts";

export const WORKSPACE_TEMPLATES: Readonly<Record<string, string>> = {
  "AGENTS.md": AGENTS_MD,
  "SOUL.md": SOUL_MD,
  "TOOLS.md": TOOLS_MD,
  "IDENTITY.md": IDENTITY_MD,
  "USER.md": USER_MD,
  "HEARTBEAT.md": HEARTBEAT_MD,
  "BOOTSTRAP.md": BOOTSTRAP_MD,
};
