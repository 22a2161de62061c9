/**
 * GET /console/api/context?session=KEY: the context engine's report (what the next turn
 * of that session would send) for the primary model, without loading it: the window of
 * a local model comes from its GGUF header (capped as the local provider caps it).
 * The client draws the budget as a stacked bar and the bootstrap files as a table.
 */
import type { Hono } from "hono";
import { createContextEngine } from "../context/index.ts";
import { primaryModelWindow } from "../providers/index.ts";
import { isOwnerSender } from "../sessions/index.ts";
import { reportToolDefinitions } from "../tools/index.ts";
import { consoleSender } from "./api-chat.ts";
import { findConsoleSession } from "./api-sessions.ts";
import type { ConsoleDeps } from "./console-deps.ts";
import type { ConsoleEnv } from "./console-env.ts";
import { apiError } from "./json-body.ts";

export function registerContextRoutes(app: Hono<ConsoleEnv>, deps: ConsoleDeps): void {
  app.get("/console/api/context", async (c) => {
    const key = c.req.query("session");
    const session = key ? findConsoleSession(deps, key) : undefined;
    if (key && !session) return apiError(c, 404, "SESSION_NOT_FOUND", "no such session");
    const { config } = deps;
    const model = await primaryModelWindow(config.models, (message) => deps.logger.warn(message));
    const sender = consoleSender(deps);
    const tools = reportToolDefinitions({
      store: deps.store,
      config,
      extra: deps.agent.extraTools(),
      policy: {
        providerId: model.providerId,
        channel: "web",
        chatType: "direct",
        senderId: sender,
        isOwner: isOwnerSender(config.agent.owners, sender),
      },
      modelKind: model.kind,
    });
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
