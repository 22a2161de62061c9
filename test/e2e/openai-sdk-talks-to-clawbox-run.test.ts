/**
 * The official `openai` npm client against a real `clawbox run` (started here on
 * 127.0.0.1, its model a fake OpenAI server speaking the real wire format): it streams a
 * reply through /v1/chat/completions, a session named by `user` carries the first turn
 * into the second (seen in the model's second request and in `clawbox sessions`), the
 * non-streamed answer and /v1/models work, a wrong token is 401, and with
 * server.openaiApi off the routes are 404.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openaiText, type ScriptedServer, startFakeOpenAI } from "../fakes/openai-server.ts";
import { cloudOnlyConfig } from "../support/openai-provider-fixture.ts";
import { type RunningService, startService } from "../support/run-service.ts";
import { spawnCli } from "../support/spawn-cli.ts";

const TOKEN = "openai-api-token-0123456789";
const KEY = "agent:main:openai-api:direct:kitchen";

function homeWith(model: ScriptedServer, openaiApi: boolean): string {
  const home = mkdtempSync(join(tmpdir(), "clawbox-openai-api-"));
  writeFileSync(
    join(home, "clawbox.json"),
    JSON.stringify(
      cloudOnlyConfig(model.url, { server: { token: TOKEN, openaiApi: { enabled: openaiApi } } }),
    ),
  );
  return home;
}

/** The text of every user and assistant message the box's model was sent in a request. */
function textsSent(request: { body: Record<string, unknown> }): string[] {
  const messages = (request.body.messages ?? []) as { role: string; content: unknown }[];
  return messages
    .filter((m) => m.role === "user" || m.role === "assistant")
    .map((m) => (typeof m.content === "string" ? m.content : JSON.stringify(m.content ?? "")));
}

describe("the openai SDK against clawbox run", () => {
  let model: ScriptedServer;
  let home: string;
  let service: RunningService;
  let client: OpenAI;

  beforeAll(async () => {
    model = await startFakeOpenAI();
    home = homeWith(model, true);
    service = await startService(["--port", "0", "--host", "127.0.0.1"], { CLAWBOX_HOME: home });
    // A failed turn is stored: the box's answers say not to retry, and so does this client.
    client = new OpenAI({ baseURL: `${service.url}/v1`, apiKey: TOKEN, maxRetries: 0 });
  }, 90_000);

  afterAll(async () => {
    service?.child.kill("SIGTERM");
    await service?.exited;
    await model?.close();
  });

  it("lists the box's model", async () => {
    const page = await client.models.list();
    expect(page.data.map((m) => m.id)).toEqual(["clawbox"]);
    expect((await client.models.retrieve("clawbox")).owned_by).toBe("clawbox");
  });

  it("streams a reply, then a second request in the same `user` session sees the first turn", async () => {
    model.enqueue(
      openaiText("The kettle is a blue one.", { usage: { prompt: 40, completion: 7, cached: 8 } }),
    );
    const stream = await client.chat.completions.create({
      model: "clawbox",
      user: "kitchen",
      stream: true,
      stream_options: { include_usage: true },
      messages: [
        { role: "system", content: "a client's own prompt, not used by the box" },
        { role: "user", content: "What colour is my kettle? Remember it." },
      ],
    });
    const chunks: OpenAI.Chat.Completions.ChatCompletionChunk[] = [];
    for await (const chunk of stream) chunks.push(chunk);
    const text = chunks.map((c) => c.choices[0]?.delta.content ?? "").join("");
    expect(text).toBe("The kettle is a blue one.");
    // More than one content chunk: it was streamed, not sent whole.
    expect(chunks.filter((c) => c.choices[0]?.delta.content).length).toBeGreaterThan(3);
    expect(chunks[0]?.choices[0]?.delta.role).toBe("assistant");
    expect(chunks.at(-2)?.choices[0]?.finish_reason).toBe("stop");
    expect(chunks.at(-1)).toMatchObject({
      object: "chat.completion.chunk",
      choices: [],
      usage: {
        prompt_tokens: 40,
        completion_tokens: 7,
        total_tokens: 47,
        prompt_tokens_details: { cached_tokens: 8 },
      },
    });
    expect(new Set(chunks.map((c) => c.id)).size).toBe(1);

    // The second request carries the client's whole history (OpenAI style, here edited by
    // the client) but only its last message is the new turn; the box's own transcript
    // supplies the history.
    model.enqueue(openaiText("It is blue.", { usage: { prompt: 60, completion: 4 } }));
    const whole = await client.chat.completions.create({
      model: "clawbox",
      user: "kitchen",
      messages: [
        { role: "user", content: "What colour is my kettle? Remember it." },
        { role: "assistant", content: "(edited by the client) The kettle is red." },
        { role: "user", content: "And what colour did you say?" },
      ],
    });
    expect(whole.object).toBe("chat.completion");
    expect(whole.choices[0]?.message.content).toBe("It is blue.");
    expect(whole.choices[0]?.finish_reason).toBe("stop");
    expect(whole.usage).toMatchObject({
      prompt_tokens: 60,
      completion_tokens: 4,
      total_tokens: 64,
    });

    // What the box's model was sent for the second turn: the first turn from the box's
    // transcript, then the new question (the client's system prompt never reaches it).
    const second = model.requests.at(-1);
    expect(second).toBeDefined();
    const sent = textsSent(second ?? { body: {} });
    expect(sent.length).toBe(3);
    expect(sent[0]).toContain("What colour is my kettle? Remember it.");
    expect(sent[1]).toContain("The kettle is a blue one.");
    expect(sent[2]).toContain("And what colour did you say?");
    expect(JSON.stringify(second?.body)).not.toContain("a client's own prompt");
    expect(JSON.stringify(second?.body)).not.toContain("edited by the client");

    // And the box's own records: one session in the openai-api namespace with both turns.
    const env = { CLAWBOX_HOME: home };
    const listed = await spawnCli(["sessions", "list", "--json"], env);
    expect(listed.code).toBe(0);
    const rows = JSON.parse(listed.stdout) as { sessionKey: string; messageCount: number }[];
    expect(rows).toEqual([expect.objectContaining({ sessionKey: KEY, messageCount: 4 })]);
    const exported = await spawnCli(["sessions", "export", KEY], env);
    expect(exported.code).toBe(0);
    const messages = exported.stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as { type: string; message?: { role: string } })
      .filter((entry) => entry.type === "message")
      .map((entry) => entry.message?.role);
    expect(messages).toEqual(["user", "assistant", "user", "assistant"]);
    expect(exported.stdout).toContain("And what colour did you say?");
    expect(exported.stdout).not.toContain("a client's own prompt");
  }, 120_000);

  it("refuses a wrong token and a missing one with 401 in OpenAI's error shape", async () => {
    const wrong = new OpenAI({
      baseURL: `${service.url}/v1`,
      apiKey: "not-the-token-000000000",
      maxRetries: 0,
    });
    const refused = await wrong.chat.completions
      .create({ model: "clawbox", messages: [{ role: "user", content: "hi" }] })
      .then(
        () => undefined,
        (error: unknown) => error,
      );
    expect(refused).toBeInstanceOf(OpenAI.AuthenticationError);
    expect((refused as InstanceType<typeof OpenAI.AuthenticationError>).status).toBe(401);
    const bare = await fetch(`${service.url}/v1/models`);
    expect(bare.status).toBe(401);
    const body = (await bare.json()) as { error: Record<string, unknown> };
    expect(Object.keys(body.error).sort()).toEqual(["code", "message", "param", "type"]);
    expect(body.error).toMatchObject({ type: "invalid_request_error", code: "invalid_api_key" });
    // Nothing was stored for the refused request: still only the kitchen session.
    const listed = await spawnCli(["sessions", "list", "--json"], { CLAWBOX_HOME: home });
    const rows = JSON.parse(listed.stdout) as { sessionKey: string }[];
    expect(rows.map((r) => r.sessionKey)).toEqual([KEY]);
  }, 60_000);

  it("answers 404 on /v1 when server.openaiApi is off", async () => {
    const off = await startService(["--port", "0"], { CLAWBOX_HOME: homeWith(model, false) });
    try {
      const client = new OpenAI({ baseURL: `${off.url}/v1`, apiKey: TOKEN, maxRetries: 0 });
      const missing = await client.models.list().then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(missing).toBeInstanceOf(OpenAI.NotFoundError);
      const res = await fetch(`${off.url}/v1/chat/completions`, {
        method: "POST",
        headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
        body: JSON.stringify({ model: "clawbox", messages: [{ role: "user", content: "hi" }] }),
      });
      expect(res.status).toBe(404);
      expect(((await res.json()) as { error: { message: string } }).error.message).toContain(
        "server.openaiApi.enabled",
      );
    } finally {
      off.child.kill("SIGTERM");
      await off.exited;
    }
  }, 90_000);
});
