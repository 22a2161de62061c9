/**
 * The Owners page: the owners (`agent.owners`) and the pending pairing requests. Approve
 * adds the person a code was issued to (and no one else) to `agent.owners` in the config
 * file, applies it at once and tells them on their platform; Deny drops the request;
 * Remove takes an owner off the list (never the last, never the id the console speaks
 * as: 409). Only a logged-in console session
 * (its X-Clawbox-Session header) reaches these routes; wrong codes count toward the approval lock
 * shared with `clawbox pairing approve` (429 while it lasts).
 */
import type { Context, Hono } from "hono";
import { tellRequester } from "../channels/index.ts";
import { toClawboxError } from "../errors/index.ts";
import {
  approvedText,
  approvePairing,
  currentOwners,
  denyPairing,
  PairingRequests,
  removeOwner,
} from "../pairing/index.ts";
import { z } from "../schema/index.ts";
import { consoleSender } from "./api-chat.ts";
import type { ConsoleDeps } from "./console-deps.ts";
import type { ConsoleEnv } from "./console-env.ts";
import { apiError, readBody } from "./json-body.ts";

const codeBody = z.object({ code: z.string().check(z.minLength(1), z.maxLength(40)) });
const ownerBody = z.object({ owner: z.string().check(z.minLength(1), z.maxLength(200)) });

export function registerOwnerRoutes(app: Hono<ConsoleEnv>, deps: ConsoleDeps): void {
  const requests = new PairingRequests(deps.store.db);
  const file = { file: deps.configFile, env: deps.env };

  const failed = (c: Context, error: unknown) => {
    const failure = toClawboxError(error);
    const status =
      failure.code === "NOT_FOUND"
        ? 404
        : failure.code === "PAIRING_LOCKED"
          ? 429
          : failure.code === "OWNER_REQUIRED"
            ? 409
            : 400;
    // A wrong code's hint points at `clawbox pairing list` or this very page: on the
    // page, the list is right there, so the page says only what was wrong.
    const said =
      failure.code === "NOT_FOUND" && failure.hint
        ? failure.message.slice(0, -(failure.hint.length + 3))
        : failure.message;
    return apiError(c, status, failure.code, said);
  };

  const view = () => {
    let owners: string[];
    try {
      owners = currentOwners(file);
    } catch {
      owners = [...deps.config.agent.owners];
    }
    return {
      owners: owners.map((id) => ({ id, console: id === consoleSender(deps) })),
      pending: requests.list(),
      lockedForMs: requests.lockedForMs(),
      now: Date.now(),
    };
  };

  app.get("/console/api/owners", (c) => c.json(view()));

  app.post("/console/api/owners/approve", async (c) => {
    const body = await readBody(c, codeBody);
    if (!body.ok) return body.response;
    try {
      const request = await approvePairing(requests, file, body.value.code);
      await deps.reloadConfig?.();
      let told = true;
      try {
        tellRequester(deps.store.db, deps.config.channels, request, approvedText());
      } catch (error) {
        told = false;
        deps.logger.warn("approved, but the person could not be told", {
          owner: request.ownerId,
          error: toClawboxError(error).message,
        });
      }
      deps.logger.info("pairing approved in the console", { owner: request.ownerId });
      return c.json({ ...view(), approved: request.ownerId, told });
    } catch (error) {
      return failed(c, error);
    }
  });

  app.post("/console/api/owners/deny", async (c) => {
    const body = await readBody(c, codeBody);
    if (!body.ok) return body.response;
    try {
      const request = denyPairing(requests, body.value.code);
      deps.logger.info("pairing denied in the console", { sender: request.ownerId });
      return c.json({ ...view(), denied: request.ownerId });
    } catch (error) {
      return failed(c, error);
    }
  });

  app.post("/console/api/owners/remove", async (c) => {
    const body = await readBody(c, ownerBody);
    if (!body.ok) return body.response;
    try {
      await removeOwner(file, body.value.owner, {
        id: consoleSender(deps),
        why: "the console speaks as this owner; without it the console would act as another owner and the CLI would be a stranger",
      });
      await deps.reloadConfig?.();
      deps.logger.info("owner removed in the console", { owner: body.value.owner });
      return c.json({ ...view(), removed: body.value.owner });
    } catch (error) {
      return failed(c, error);
    }
  });
}
