/**
 * GET /console/api/context?session=KEY: the context engine's report (what the next turn
 * of that session would send) for the primary model, without loading it: the window of
 * a local model comes from its GGUF header (capped at 8192 as the local provider does).
 * The client draws the budget as a stacked bar and the bootstrap files as a table.
 */
import type { Hono } from "hono";
import type { ClawboxConfig } from "../config/index.ts";
import { createContextEngine } from "../context/index.ts";
import { readGgufHeader } from "../models/index.ts";
import {
  applyToolPolicy,
  createBaseTools,
  isOwner,
  normalizeSchema,
  orderByPriority,
} from "../tools/index.ts";
import { consoleSender } from "./api-chat.ts";
import type { ConsoleEnv } from "./console-app.ts";
import type { ConsoleDeps } from "./console-deps.ts";
import { apiError } from "./json-body.ts";

const LOCAL_CONTEXT_CAP = 8192;

async function primaryWindow(config: ClawboxConfig) {
  const id = config.models.primary;
  const entry = config.models.providers[id];
  if (!entry)
    return { providerId: id, model: "?", contextWindow: LOCAL_CONTEXT_CAP, kind: "local" as const };
  if (entry.kind !== "local") {
    return {
      providerId: id,
      model: entry.model,
      contextWindow: entry.contextWindow,
      kind: "cloud" as const,
    };
  }
  let window = entry.contextSize ?? LOCAL_CONTEXT_CAP;
  if (entry.contextSize === undefined && entry.path) {
    try {
      const header = await readGgufHeader(entry.path);
      window = Math.min(header.contextLength ?? LOCAL_CONTEXT_CAP, LOCAL_CONTEXT_CAP);
    } catch {
      window = LOCAL_CONTEXT_CAP;
    }
  }
  const model = entry.path ? (entry.path.split("/").pop() ?? entry.path) : "(no model file)";
  return { providerId: id, model, contextWindow: window, kind: "local" as const };
}

export function registerContextRoutes(app: Hono<ConsoleEnv>, deps: ConsoleDeps): void {
  app.get("/console/api/context", async (c) => {
    const key = c.req.query("session");
    const session = key ? deps.store.sessions.find(key) : undefined;
    if (key && !session) return apiError(c, 404, "SESSION_NOT_FOUND", "no such session");
    const { config } = deps;
    const model = await primaryWindow(config);
    const sender = consoleSender(deps);
    const tools = applyToolPolicy(
      orderByPriority([
        ...createBaseTools({ store: deps.store, tools: config.tools }),
        ...(deps.memory?.tools ?? []),
      ]),
      config,
      {
        providerId: model.providerId,
        channel: "web",
        chatType: "direct",
        senderId: sender,
        isOwner: isOwner(config, sender),
      },
    ).map((tool) => ({
      name: tool.name,
      description: tool.description,
      parameters: normalizeSchema(tool.parameters, model.kind === "local" ? "local" : "openai"),
    }));
    const engine = createContextEngine({
      config,
      store: deps.store,
      paths: deps.paths,
      logger: deps.logger,
      watch: false,
    });
    try {
      if (!engine.report)
        return apiError(c, 501, "INTERNAL", `context engine ${engine.id} has no report`);
      const report = await engine.report({
        ...(session ? { session } : {}),
        modelKind: model.kind,
        model: {
          providerId: model.providerId,
          model: model.model,
          contextWindow: model.contextWindow,
        },
        tools,
      });
      return c.json(report);
    } finally {
      engine.dispose?.();
    }
  });
}
