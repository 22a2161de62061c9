/**
 * Models: the manifest's chat models with what is installed and what is recommended for
 * this board, a background pull with progress, and choosing the active model (the local
 * model file, the primary provider) and the fallback. Choices are written to the config
 * file (comments kept) and applied to the running agent at once.
 */
import type { Hono } from "hono";
import { toClawboxError } from "../errors/index.ts";
import {
  activateModel,
  boardResources,
  chatModels,
  editModelSettings,
  installedChatModels,
  loadManifest,
  localProviderId,
  type Manifest,
  recommendChatModel,
} from "../models/index.ts";
import { z } from "../schema/index.ts";
import { formatBytes } from "../system/index.ts";
import type { ConsoleDeps } from "./console-deps.ts";
import type { ConsoleEnv } from "./console-env.ts";
import { apiError, readBody } from "./json-body.ts";
import { ModelPullJob } from "./model-pull-job.ts";
import { applyModelSettings } from "./model-settings.ts";

/** A model or provider name as the console sends it. */
const name = z.string().check(z.minLength(1), z.maxLength(100));
const nameBody = z.object({ name });
/** A pull: `allowUnverified` is the page's "download without a checksum" choice. */
const pullBody = z.object({ name, allowUnverified: z.optional(z.boolean()) });
/** A chain change: only what the person changed (an absent key stays as the file has it). */
const chainBody = z.object({
  primary: z.optional(name),
  fallbacks: z.optional(z.array(name).check(z.maxLength(8))),
});

export function registerModelRoutes(app: Hono<ConsoleEnv>, deps: ConsoleDeps): void {
  const job = new ModelPullJob(deps);
  /** The job's state with its byte counts written for people. */
  const pullState = () => {
    const state = job.state();
    return {
      ...state,
      receivedText: formatBytes(state.received),
      totalText: state.total === null ? null : formatBytes(state.total),
    };
  };
  const manifest = (): Manifest =>
    deps.manifestPath ? loadManifest(deps.manifestPath) : loadManifest();

  app.get("/console/api/models", (c) => {
    const m = manifest();
    const board = boardResources(deps.paths.modelsDir);
    const recommendation = recommendChatModel(m, board);
    const installed = new Map(installedChatModels(deps.paths.modelsDir, m).map((i) => [i.name, i]));
    const { models } = deps.config;
    const localId = localProviderId(deps.config.models);
    const local = models.providers[localId];
    const activePath = local?.kind === "local" ? local.path : undefined;
    return c.json({
      board: {
        ...board,
        ram: formatBytes(board.totalRamMb * 1048576),
        freeDisk: board.freeDiskMb === undefined ? null : formatBytes(board.freeDiskMb * 1048576),
      },
      recommendation: {
        model: recommendation.model?.name ?? null,
        reason: recommendation.reason,
        command: recommendation.command ?? null,
      },
      chat: chatModels(m).map((model) => {
        const have = installed.get(model.name);
        return {
          name: model.name,
          description: model.description,
          quantization: model.quantization,
          contextLength: model.contextLength,
          minRamMb: model.minRamMb,
          license: model.license,
          bytes: model.files[0]?.size ?? null,
          size: model.files[0]?.size ? formatBytes(model.files[0].size) : null,
          verified: model.files.every((f) => f.sha256 !== null),
          installed: have !== undefined,
          active: have !== undefined && have.path === activePath,
        };
      }),
      localId,
      localPath: activePath ?? null,
      primary: models.primary,
      fallbacks: models.fallbacks,
      providers: Object.entries(models.providers).map(([id, p]) => ({
        id,
        kind: p.kind,
        model: p.kind === "local" ? (p.path?.split("/").pop() ?? null) : p.model,
      })),
      state: deps.agent.modelState(),
      pull: pullState(),
    });
  });

  app.get("/console/api/models/pull", (c) => c.json(pullState()));

  app.post("/console/api/models/pull", async (c) => {
    const body = await readBody(c, pullBody);
    if (!body.ok) return body.response;
    const model = manifest().models.find((m) => m.name === body.value.name);
    if (!model)
      return apiError(
        c,
        404,
        "MODEL_NOT_FOUND",
        `no model named "${body.value.name}" in the manifest`,
      );
    // The same explicit choice as `clawbox models pull --allow-unverified`, asked before
    // anything is downloaded.
    const unverified = model.files.filter((f) => f.sha256 === null).map((f) => f.name);
    const allowUnverified = body.value.allowUnverified === true;
    if (unverified.length > 0 && !allowUnverified)
      return apiError(
        c,
        400,
        "MODEL_INVALID",
        `${model.name} has no published checksum (sha256) for ${unverified.join(", ")}, so the download cannot be verified. Tick "download without a checksum" next to Pull to download it anyway; the checksum it gets is shown when it is done.`,
      );
    if (!job.start(model, { allowUnverified }))
      return apiError(c, 409, "BUSY", "another model is being pulled");
    return c.json(pullState(), 202);
  });

  app.post("/console/api/models/activate", async (c) => {
    const body = await readBody(c, nameBody);
    if (!body.ok) return body.response;
    const have = installedChatModels(deps.paths.modelsDir, manifest()).find(
      (i) => i.name === body.value.name,
    );
    if (!have) return apiError(c, 404, "MODEL_NOT_FOUND", `${body.value.name} is not installed`);
    const localId = localProviderId(deps.config.models);
    try {
      await activateModel(deps.config.models, deps.configFile, have.path);
      const changed = applyModelSettings(deps);
      job.dismiss();
      return c.json({ ok: true, localPath: have.path, primary: localId, changed });
    } catch (error) {
      const failure = toClawboxError(error);
      return apiError(c, 400, failure.code, failure.message);
    }
  });

  app.post("/console/api/models/chain", async (c) => {
    const body = await readBody(c, chainBody);
    if (!body.ok) return body.response;
    const { models } = deps.config;
    const primary = body.value.primary ?? models.primary;
    const known = Object.keys(models.providers);
    const unknown = [primary, ...(body.value.fallbacks ?? [])].filter((id) => !known.includes(id));
    if (unknown.length > 0) {
      return apiError(c, 400, "HTTP_BAD_REQUEST", `not in models.providers: ${unknown.join(", ")}`);
    }
    // The primary is never its own fallback: a new primary leaves the fallbacks.
    const fallbacks = (body.value.fallbacks ?? models.fallbacks).filter((id) => id !== primary);
    const edit = {
      ...(primary !== models.primary ? { primary } : {}),
      ...(fallbacks.join("\n") !== models.fallbacks.join("\n") ? { fallbacks } : {}),
    };
    // Nothing changed: nothing is written (the file stays byte for byte as it was).
    if (Object.keys(edit).length === 0) return c.json({ ok: true, changed: [] });
    try {
      await editModelSettings(deps.configFile, edit, { validate: { env: deps.env } });
      const changed = applyModelSettings(deps);
      return c.json({ ok: true, changed });
    } catch (error) {
      const failure = toClawboxError(error);
      return apiError(c, 400, failure.code, failure.message);
    }
  });
}
