/**
 * What /v1/chat/completions makes of a request and how it answers, on a real Bun server
 * with a scripted backend: the last user message is the turn (history, system prompt and
 * client tools are not passed on), `X-Clawbox-Session` or `user` names a session of the
 * openai-api channel, the turn is the owner's, pictures arrive as images; the answer is
 * OpenAI's `chat.completion` or a chunk stream ending in `[DONE]` with usage summed over
 * the turn's model calls; a failed turn says not to retry.
 */
import { afterEach, describe, expect, it } from "vitest";
import type { ChatBackend, ChatBackendRequest, ChatBackendResult } from "../../src/server/index.ts";
import { createSessionResolver } from "../../src/sessions/index.ts";
import { TINY_PNG } from "../fixtures/tiny-png.ts";
import { serveApp } from "../support/serve-app.ts";

const TINY_PNG_BASE64 = TINY_PNG.toString("base64");

const TOKEN = "the-owners-token-0123456789";
const servers: ReturnType<typeof Bun.serve>[] = [];
afterEach(() => {
  for (const server of servers.splice(0)) server.stop(true);
});

const usage = (input: number, output: number, cacheRead = 0) => ({
  input,
  output,
  cacheRead,
  cacheWrite: 0,
  totalTokens: input + output + cacheRead,
});

/** Two model calls (a tool round, then the answer), streamed in pieces. */
function scriptedBackend(calls: ChatBackendRequest[], fail?: ChatBackendResult["error"]) {
  const backend: ChatBackend = {
    modelState: () => ({}),
    async chat(request) {
      calls.push(request);
      const emit = request.onEvent ?? (() => {});
      emit({ type: "message_update", event: { type: "text_delta", delta: "Let me look. " } });
      emit({ type: "turn_end", message: { usage: usage(100, 10, 20), stopReason: "toolUse" } });
      if (fail)
        return {
          sessionId: "s",
          sessionKey: request.sessionKey,
          reply: "",
          silent: false,
          error: fail,
        };
      emit({ type: "message_update", event: { type: "thinking_delta", delta: "secret thoughts" } });
      for (const delta of ["The lights ", "are off."])
        emit({ type: "message_update", event: { type: "text_delta", delta } });
      emit({ type: "turn_end", message: { usage: usage(130, 5), stopReason: "stop" } });
      return {
        sessionId: "s",
        sessionKey: request.sessionKey,
        reply: "The lights are off.",
        silent: false,
      };
    },
  };
  return backend;
}

function serve(
  options: { directSessionMode?: "per-peer" | "main"; fail?: ChatBackendResult["error"] } = {},
) {
  const calls: ChatBackendRequest[] = [];
  const { server, base } = serveApp({
    backend: scriptedBackend(calls, options.fail),
    sessions: createSessionResolver({
      id: "main",
      directSessionMode: options.directSessionMode ?? "per-peer",
      owners: ["cli"],
    }),
    token: TOKEN,
    openaiApi: { enabled: true },
  });
  servers.push(server);
  return { calls, base };
}

function complete(
  base: string,
  body: Record<string, unknown>,
  headers: Record<string, string> = {},
) {
  return fetch(`${base}/v1/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${TOKEN}`, ...headers },
    body: JSON.stringify({ model: "clawbox", ...body }),
  });
}

const ask = (content: unknown) => ({ messages: [{ role: "user", content }] });

/** The `data:` payloads of an SSE answer, comments left out. */
async function dataLines(res: Response): Promise<string[]> {
  const text = await res.text();
  return text
    .split("\n")
    .filter((line) => line.startsWith("data: "))
    .map((line) => line.slice("data: ".length));
}

describe("POST /v1/chat/completions", () => {
  it("makes the last user message an owner turn in the named openai-api session", async () => {
    const s = serve();
    const res = await complete(s.base, {
      user: "kitchen",
      messages: [
        { role: "system", content: "You are a pirate." },
        { role: "user", content: "first question" },
        { role: "assistant", content: "first answer" },
        {
          role: "user",
          content: [
            { type: "text", text: "are the" },
            { type: "text", text: "lights on?" },
          ],
        },
      ],
      tools: [{ type: "function", function: { name: "client_tool", parameters: {} } }],
      temperature: 0.1,
    });
    expect(res.status).toBe(200);
    expect(res.headers.get("x-clawbox-session-key")).toBe("agent:main:openai-api:direct:kitchen");
    expect(s.calls).toHaveLength(1);
    const call = s.calls[0];
    expect(call).toMatchObject({
      sessionKey: "agent:main:openai-api:direct:kitchen",
      text: "are the\nlights on?",
      channel: "openai-api",
      chatType: "direct",
      senderId: "web:token",
      authenticatedOwner: true,
    });
    expect(JSON.stringify(call)).not.toContain("pirate");
    expect(JSON.stringify(call)).not.toContain("client_tool");
  });

  it("takes the session from X-Clawbox-Session before `user`, else the owner's default", async () => {
    const s = serve();
    await complete(s.base, { ...ask("a"), user: "kitchen" }, { "x-clawbox-session": "garage" });
    await complete(s.base, ask("b"));
    expect(s.calls.map((c) => c.sessionKey)).toEqual([
      "agent:main:openai-api:direct:garage",
      "agent:main:openai-api:direct:owner",
    ]);
    const main = serve({ directSessionMode: "main" });
    await complete(main.base, ask("c"));
    expect(main.calls[0]?.sessionKey).toBe("agent:main:main");
  });

  it("refuses what it cannot make a turn of with 400 naming the field, and unknown models with 404", async () => {
    const s = serve();
    const refused = async (body: Record<string, unknown>, field: string, headers = {}) => {
      const res = await complete(s.base, body, headers);
      expect(res.status, field).toBe(400);
      const error = ((await res.json()) as { error: { message: string; type: string } }).error;
      expect(error.type).toBe("invalid_request_error");
      expect(error.message, field).toContain(field);
    };
    await refused(
      {
        messages: [
          { role: "user", content: "q" },
          { role: "assistant", content: "a" },
        ],
      },
      "messages[1]",
    );
    await refused(
      { messages: [{ role: "tool", content: "42", tool_call_id: "x" }] },
      "messages[0]",
    );
    await refused({ messages: [] }, "messages");
    await refused(ask("   "), "messages[0].content");
    await refused({ ...ask("hi"), user: "agent:main:cli:direct:owner" }, "user");
    await refused({ ...ask("hi"), user: "../etc" }, "user");
    await refused(ask("hi"), "X-Clawbox-Session", { "x-clawbox-session": "a b" });
    // `curl -H 'X-Clawbox-Session: ké'` sends UTF-8 bytes, which HTTP reads as Latin-1.
    const garbled = await complete(s.base, ask("hi"), {
      "x-clawbox-session": Buffer.from("ké", "utf8").toString("latin1"),
    });
    expect(garbled.status).toBe(400);
    const said = ((await garbled.json()) as { error: { message: string } }).error.message;
    expect(said).toContain("the X-Clawbox-Session header must be ASCII");
    expect(said).not.toContain("Ã");
    await refused({ ...ask("hi"), n: 2 }, "n");
    await refused(
      ask([{ type: "image_url", image_url: { url: "http://192.168.1.1/cam.jpg" } }]),
      "data: URL",
    );
    await refused(
      ask([{ type: "input_audio", input_audio: { data: "", format: "wav" } }]),
      "input_audio",
    );
    const bad = await fetch(`${s.base}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${TOKEN}` },
      body: "{nope",
    });
    expect(bad.status).toBe(400);
    const model = await complete(s.base, { ...ask("hi"), model: "gpt-4o" });
    expect(model.status).toBe(404);
    expect(await model.json()).toMatchObject({ error: { code: "model_not_found" } });
    expect(s.calls).toEqual([]);
  });

  it("passes a data: URL picture on as an image", async () => {
    const s = serve();
    const res = await complete(
      s.base,
      ask([
        { type: "text", text: "what is this?" },
        { type: "image_url", image_url: { url: `data:image/png;base64,${TINY_PNG_BASE64}` } },
      ]),
    );
    expect(res.status).toBe(200);
    expect(s.calls[0]?.images).toEqual([
      { type: "image", data: TINY_PNG_BASE64, mimeType: "image/png" },
    ]);
    // A phone photo is larger than the rest of the API's 256 KB: the owner's chat takes it.
    const photo = Buffer.alloc(3 * 1024 * 1024, 7).toString("base64");
    const big = await complete(
      s.base,
      ask([{ type: "image_url", image_url: { url: `data:image/jpeg;base64,${photo}` } }]),
    );
    expect(big.status).toBe(200);
    expect(s.calls[1]?.images?.[0]?.data.length).toBe(photo.length);
  });

  it("answers whole as a chat.completion with usage summed over the turn's model calls", async () => {
    const s = serve();
    const res = await complete(s.base, ask("are the lights on?"));
    const body = (await res.json()) as Record<string, unknown>;
    expect(body).toMatchObject({
      object: "chat.completion",
      model: "clawbox",
      choices: [
        {
          index: 0,
          message: { role: "assistant", content: "The lights are off." },
          finish_reason: "stop",
        },
      ],
      usage: {
        prompt_tokens: 250,
        completion_tokens: 15,
        total_tokens: 265,
        prompt_tokens_details: { cached_tokens: 20 },
      },
    });
    expect(String(body.id)).toMatch(/^chatcmpl-/);
  });

  it("streams chunks ending in [DONE], with usage last only when asked", async () => {
    const s = serve();
    const res = await complete(s.base, { ...ask("q"), stream: true });
    expect(res.headers.get("content-type")).toContain("text/event-stream");
    expect(res.headers.get("x-clawbox-session-key")).toBe("agent:main:openai-api:direct:owner");
    const plain = await dataLines(res);
    expect(plain.at(-1)).toBe("[DONE]");
    const chunks = plain.slice(0, -1).map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(chunks.every((c) => c.object === "chat.completion.chunk" && !("usage" in c))).toBe(true);
    type Choice = { delta: { content?: string; role?: string }; finish_reason: string | null };
    const choices = chunks.map((c) => (c.choices as Choice[])[0]);
    expect(choices[0]?.delta).toEqual({ role: "assistant", content: "" });
    expect(choices.map((c) => c?.delta.content ?? "").join("")).toBe(
      "Let me look. The lights are off.",
    );
    expect(choices.at(-1)).toMatchObject({ delta: {}, finish_reason: "stop" });
    expect(plain.join("")).not.toContain("secret thoughts");

    const withUsage = await dataLines(
      await complete(s.base, {
        ...ask("q"),
        stream: true,
        stream_options: { include_usage: true },
      }),
    );
    expect(withUsage.at(-1)).toBe("[DONE]");
    const last = JSON.parse(withUsage.at(-2) ?? "{}") as Record<string, unknown>;
    expect(last).toMatchObject({
      choices: [],
      usage: { prompt_tokens: 250, completion_tokens: 15 },
    });
    const before = withUsage
      .slice(0, -2)
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(before.every((c) => c.usage === null)).toBe(true);
  });

  it("a failed turn: 502 with x-should-retry false, or an error chunk then [DONE] in a stream", async () => {
    const s = serve({
      fail: { code: "PROVIDER_NETWORK", message: "The AI service could not be reached." },
    });
    const whole = await complete(s.base, ask("q"));
    expect(whole.status).toBe(502);
    expect(whole.headers.get("x-should-retry")).toBe("false");
    expect(await whole.json()).toMatchObject({
      error: {
        message: "The AI service could not be reached.",
        type: "server_error",
        code: "PROVIDER_NETWORK",
      },
    });
    const streamed = await dataLines(await complete(s.base, { ...ask("q"), stream: true }));
    expect(streamed.at(-1)).toBe("[DONE]");
    expect(JSON.parse(streamed.at(-2) ?? "{}")).toMatchObject({
      error: { type: "server_error", code: "PROVIDER_NETWORK" },
    });
  });

  it("GET /v1/models lists clawbox; other methods on the chat route are 405", async () => {
    const s = serve();
    const auth = { authorization: `Bearer ${TOKEN}` };
    const list = await fetch(`${s.base}/v1/models`, { headers: auth });
    expect(await list.json()).toMatchObject({
      object: "list",
      data: [{ id: "clawbox", object: "model", owned_by: "clawbox" }],
    });
    const missing = await fetch(`${s.base}/v1/models/gpt-4o`, { headers: auth });
    expect(missing.status).toBe(404);
    const get = await fetch(`${s.base}/v1/chat/completions`, { headers: auth });
    expect(get.status).toBe(405);
    expect(get.headers.get("allow")).toBe("POST");
  });
});
