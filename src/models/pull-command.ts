/**
 * The exact `clawbox models pull` command a hint tells a user to run. It carries
 * `--allow-unverified` when the manifest publishes no sha256 for one of the model's
 * files, because without it the command would only fail ("no published sha256"). Every
 * hint (memory status and search, doctor, the recommendation, the missing-model reply)
 * takes its command from here, so a suggested fix always runs.
 */
import { loadManifest, type ManifestModel } from "./manifest.ts";

export function pullCommandFor(model: Pick<ManifestModel, "name" | "files">): string {
  const unverified = model.files.some((file) => file.sha256 === null);
  return `clawbox models pull ${model.name}${unverified ? " --allow-unverified" : ""}`;
}

/**
 * The command for the manifest model `name` (default manifest unless `manifestPath`);
 * the bare command when the manifest cannot be read or does not list the name.
 */
export function pullCommand(name: string, manifestPath?: string): string {
  try {
    const manifest = manifestPath ? loadManifest(manifestPath) : loadManifest();
    const model = manifest.models.find((m) => m.name === name);
    if (model) return pullCommandFor(model);
  } catch {
    // An unreadable manifest: the bare command still names the model.
  }
  return `clawbox models pull ${name}`;
}
