/**
 * Installed chat models: `<modelsDir>/<name>/<file>.gguf` plus `clawbox-model.json` with
 * `kind: "chat"`, written last by `models pull`. Only complete folders count, so the
 * console and the recommendation never offer a half-downloaded file.
 */
import { existsSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { z } from "../schema/index.ts";
import type { ChatManifestModel, Manifest } from "./manifest.ts";
import { INSTALLED_INFO_FILE, installedModelDir } from "./manifest-installed.ts";

const chatInfoSchema = z.object({
  name: z.string().check(z.minLength(1)),
  kind: z.literal("chat"),
  file: z.string().check(z.regex(/^[A-Za-z0-9._-]+\.gguf$/)),
  sha256: z.optional(z.string()),
});

export interface InstalledChatModel {
  name: string;
  /** Absolute path of the GGUF file (what models.providers.local.path points at). */
  path: string;
  bytes: number;
  sha256: string | undefined;
}

/** The chat model in `dir`, or undefined when the folder holds no complete chat model. */
export function readInstalledChatModel(dir: string): InstalledChatModel | undefined {
  const infoPath = join(dir, INSTALLED_INFO_FILE);
  if (!existsSync(infoPath)) return undefined;
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(infoPath, "utf8"));
  } catch {
    return undefined;
  }
  const parsed = chatInfoSchema.safeParse(raw);
  if (!parsed.success) return undefined;
  const path = join(dir, parsed.data.file);
  if (!existsSync(path)) return undefined;
  return {
    name: parsed.data.name,
    path,
    bytes: statSync(path).size,
    sha256: parsed.data.sha256,
  };
}

/** Chat models of the manifest that are installed under `modelsDir`, in manifest order. */
export function installedChatModels(modelsDir: string, manifest: Manifest): InstalledChatModel[] {
  return manifest.models
    .filter((m): m is ChatManifestModel => m.kind === "chat")
    .flatMap((m) => {
      const found = readInstalledChatModel(installedModelDir(modelsDir, m.name));
      return found ? [found] : [];
    });
}
