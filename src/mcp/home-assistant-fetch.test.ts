import { afterEach, describe, expect, it } from "vitest";
import {
  type FakeHomeAssistant,
  startFakeHomeAssistant,
} from "../../test/fakes/home-assistant-mcp.ts";
import { guardedFetch, homeAssistantEndpoint } from "./home-assistant-fetch.ts";

let ha: FakeHomeAssistant | undefined;
let other: FakeHomeAssistant | undefined;
afterEach(async () => {
  await ha?.close();
  await other?.close();
  ha = other = undefined;
});

describe("the Home Assistant token's fetch", () => {
  it("adds the token only for the saved endpoint and refuses any other address", async () => {
    ha = await startFakeHomeAssistant();
    other = await startFakeHomeAssistant();
    const guard = guardedFetch(homeAssistantEndpoint(`${ha.url}/`), ha.token);
    await expect(guard.fetch(`${other.url}/api/mcp`, { method: "POST" })).rejects.toThrow(
      /refused to send the token to http:\/\/127\.0\.0\.1:\d+\/api\/mcp/,
    );
    expect(other.authorizations).toEqual([]);
    const res = await guard.fetch(`${ha.url}/api/mcp`, { method: "GET" });
    expect(res.status).toBe(405);
    expect(ha.authorizations).toEqual([`Bearer ${ha.token}`]);
  });

  it("never follows a redirect, not even one to the same origin", async () => {
    ha = await startFakeHomeAssistant();
    ha.mode = "redirect";
    ha.redirectTo = "/api/mcp?code=abc";
    const guard = guardedFetch(`${ha.url}/api/mcp`, ha.token);
    await expect(guard.fetch(`${ha.url}/api/mcp`, { method: "POST" })).rejects.toThrow(
      /redirect to http:\/\/127\.0\.0\.1:\d+\/api\/mcp; the token is never sent through a redirect/,
    );
    expect(ha.authorizations).toHaveLength(1);
    expect(guard.lastProblem()).toMatchObject({ kind: "redirect" });
  });
});
