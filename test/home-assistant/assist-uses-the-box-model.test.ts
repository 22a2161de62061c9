/**
 * Home Assistant's `llama_cpp` integration against a real `clawbox run` whose local model
 * is the tiny random-weights stories260K GGUF. Replayed from HA's source
 * (../shared/HOME-ASSISTANT-PROTOCOLS.md §2: `llama_cpp/api.py`, `config_flow.py`,
 * `entity.py`): the config flow (model listing, then the dummy-tool call with
 * `max_tokens: 3`, non-streamed and streamed), then one Assist turn with HA's namespaced
 * tools, read as HA reads it (`_transform_response` / `_transform_stream`): every
 * `tool_calls` names an offered tool and its arguments parse; the tool result message
 * (HA's `{"data", "error"}` wrapper) is accepted and a final text comes back. And the
 * model id never reaches the box's own tools, memory or sessions.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../support/run-cli.ts";
import { type RunningService, startService } from "../support/run-service.ts";
import { HAVE_STORIES, STORIES_MODEL } from "../support/stories-model.ts";

const TOKEN = "box-server-token-for-ha-llama-cpp-4417";
let home: string;
let box: RunningService;

beforeAll(async () => {
  if (!HAVE_STORIES) return;
  home = mkdtempSync(join(tmpdir(), "clawbox-ha-llama-"));
  writeFileSync(
    join(home, "clawbox.json"),
    JSON.stringify({
      server: { token: TOKEN, openaiApi: { enabled: true } },
      memory: { enabled: false },
      models: {
        primary: "local",
        providers: {
          local: {
            kind: "local",
            path: STORIES_MODEL,
            threads: 1,
            contextSize: 4096,
            sessions: 2,
            seed: 7,
            maxTokens: 128,
          },
        },
      },
    }),
  );
  box = await startService(["--port", "0", "--host", "127.0.0.1"], { CLAWBOX_HOME: home });
}, 90_000);

afterAll(async () => {
  box?.child.kill("SIGTERM");
  await box?.exited;
  if (home) rmSync(home, { recursive: true, force: true });
});

const headers = (key = TOKEN) => ({
  authorization: `Bearer ${key}`,
  "content-type": "application/json",
});

const post = (body: unknown, key = TOKEN) =>
  fetch(`${box.url}/v1/chat/completions`, {
    method: "POST",
    headers: headers(key),
    body: JSON.stringify(body),
  });

interface ToolInput {
  id: string;
  name: string;
  args: Record<string, unknown>;
}
interface HaReply {
  content: string;
  calls: ToolInput[];
}

/** HA's `_transform_response`: message content and each tool call's `json.loads(arguments)`. */
async function readWhole(res: Response): Promise<HaReply> {
  expect(res.status).toBe(200);
  const body = (await res.json()) as {
    choices: {
      message: {
        content: string | null;
        tool_calls?: { id: string; function: { name: string; arguments: string } }[];
      };
    }[];
  };
  const message = body.choices[0]?.message;
  return {
    content: message?.content ?? "",
    calls: (message?.tool_calls ?? []).map((c) => ({
      id: c.id,
      name: c.function.name,
      args: JSON.parse(c.function.arguments),
    })),
  };
}

/** HA's `_transform_stream`, literally: a finish chunk ends it before its delta is read. */
async function readStream(res: Response): Promise<HaReply> {
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toContain("text/event-stream");
  const text = await res.text();
  const datas = text
    .split("\n")
    .filter((l) => l.startsWith("data: "))
    .map((l) => l.slice(6));
  expect(datas.at(-1)).toBe("[DONE]");
  let content = "";
  const calls: ToolInput[] = [];
  let current: { id: string; name: string; args: string; index: number } | undefined;
  let finished = false;
  for (const data of datas.slice(0, -1)) {
    const chunk = JSON.parse(data) as {
      choices?: {
        finish_reason: string | null;
        delta: {
          content?: string;
          tool_calls?: {
            index: number;
            id?: string;
            function?: { name?: string; arguments?: string };
          }[];
        };
      }[];
    };
    const choice = chunk.choices?.[0];
    if (!choice) continue;
    if (choice.finish_reason) {
      if (current)
        calls.push({ id: current.id, name: current.name, args: JSON.parse(current.args || "{}") });
      finished = true;
      break;
    }
    const call = choice.delta.tool_calls?.[0];
    if (call) {
      if (current && call.index !== current.index) {
        calls.push({ id: current.id, name: current.name, args: JSON.parse(current.args) });
        current = undefined;
      }
      if (!current) {
        expect(call.id).toBeTruthy();
        expect(call.function?.name).toBeTruthy();
        current = {
          id: String(call.id),
          name: String(call.function?.name),
          args: "",
          index: call.index,
        };
      }
      current.args += call.function?.arguments ?? "";
    } else if (!current && choice.delta.content) content += choice.delta.content;
  }
  expect(finished).toBe(true);
  return { content, calls };
}

const SYSTEM =
  "You are a voice assistant for Home Assistant.\nAnswer questions about the world truthfully.\nAnswer in plain text. Keep it simple and to the point.\nWhen controlling Home Assistant always call the intent tools. Use homeassistant__GetLiveContext to get the current state.\nStatic Context: An overview of the areas and the devices in this smart home:\n- names: Kitchen Light\n  domain: light\n  areas: Kitchen\n";
const ON_OFF = {
  type: "object",
  properties: {
    name: { type: "string" },
    area: { type: "string" },
    floor: { type: "string" },
    domain: { type: "array", items: { type: "string" } },
    device_class: { type: "array", items: { type: "string", enum: ["switch", "outlet", "tv"] } },
  },
};
const HA_TOOLS = [
  {
    name: "intent__HassTurnOn",
    description: "Turns on/opens/presses a device or entity.",
    parameters: ON_OFF,
  },
  {
    name: "intent__HassTurnOff",
    description: "Turns off/closes a device or entity.",
    parameters: ON_OFF,
  },
  {
    name: "homeassistant__GetLiveContext",
    description: "Provides real-time information about the CURRENT state of devices.",
    parameters: {
      type: "object",
      properties: {
        name: { type: "string", description: "Name of the device or entity" },
        domain: { anyOf: [{ type: "string" }, { type: "array", items: { type: "string" } }] },
        area: { type: "string" },
      },
    },
  },
].map((f) => ({ type: "function", function: f }));
const OFFERED = new Set(HA_TOOLS.map((t) => t.function.name));

describe.skipIf(!HAVE_STORIES)("Home Assistant's llama_cpp integration against clawbox run", () => {
  it("the config flow: the models list, then the dummy-tool call with max_tokens 3, whole and streamed", async () => {
    const listed = await fetch(`${box.url}/v1/models`, { headers: headers() });
    const ids = ((await listed.json()) as { data: { id: string }[] }).data.map((m) => m.id);
    expect(ids).toEqual(["clawbox", "local"]);
    expect(
      (await fetch(`${box.url}/v1/models`, { headers: headers("sk-0000000000000000000") })).status,
    ).toBe(401);

    const check = {
      model: "local",
      messages: [
        { role: "system", content: "You are a helpful assistant." },
        { role: "user", content: "What is the capital of France?" },
      ],
      tools: [
        {
          type: "function",
          function: {
            name: "test_function",
            description: "Test function.",
            parameters: { type: "object", properties: {} },
          },
        },
      ],
      max_tokens: 3,
    };
    const whole = await readWhole(await post({ ...check, stream: false }));
    const streamed = await readStream(await post({ ...check, stream: true }));
    for (const reply of [whole, streamed])
      for (const call of reply.calls) expect(call.name).toBe("test_function");
    expect(await post({ ...check, stream: false }, "sk-0000000000000000000")).toHaveProperty(
      "status",
      401,
    );
  }, 60_000);

  it("one Assist turn: tool_calls name only offered tools with parsing arguments, the tool result is taken, a final text comes back", async () => {
    const messages: unknown[] = [
      { role: "system", content: SYSTEM },
      { role: "user", content: "Turn off the kitchen light" },
    ];
    const turn = (stream: boolean, extra: Record<string, unknown> = {}) =>
      post({
        messages,
        model: "local",
        tools: HA_TOOLS,
        max_tokens: 3000,
        top_p: 1.0,
        temperature: 0.7,
        user: "01JF8Z3J6V8Q9W2X4Y5Z6A7B8C",
        stream,
        ...extra,
      });
    // Random weights may answer in text; the first call is made to call a tool so the
    // tool-result path runs (HA itself sends no tool_choice).
    let reply = await readStream(await turn(true, { tool_choice: "required" }));
    let calls = 0;
    for (let iteration = 0; iteration < 10; iteration++) {
      if (reply.calls.length === 0) break;
      for (const call of reply.calls) {
        expect(OFFERED.has(call.name)).toBe(true);
        expect(typeof call.args).toBe("object");
        calls++;
      }
      messages.push({
        role: "assistant",
        content: reply.content || null,
        tool_calls: reply.calls.map((c) => ({
          type: "function",
          id: c.id,
          function: { arguments: JSON.stringify(c.args), name: c.name },
        })),
      });
      for (const call of reply.calls)
        messages.push({
          role: "tool",
          tool_call_id: call.id,
          content: JSON.stringify({
            data: {
              speech: {},
              response_type: "action_done",
              data: {
                targets: [],
                success: [{ name: "Kitchen Light", type: "entity", id: "light.kitchen_light" }],
                failed: [],
              },
            },
            error: null,
          }),
        });
      // HA's later iterations alternate here between streamed and whole, as both are HA's.
      reply =
        iteration % 2 === 0
          ? await readWhole(await turn(false))
          : await readStream(await turn(true));
    }
    expect(calls).toBeGreaterThan(0);
    if (reply.calls.length > 0) {
      // Ten iterations of calls is HA's limit; the answer must still be able to be text.
      reply = await readWhole(await turn(false, { tool_choice: "none" }));
    }
    expect(reply.calls).toEqual([]);
    expect(typeof reply.content).toBe("string");
  }, 120_000);

  it("a resent conversation evaluates only what is new (the KV prefix is kept, a reply cut by max_tokens included)", async () => {
    const messages: unknown[] = [
      { role: "system", content: SYSTEM },
      { role: "user", content: "Turn off the kitchen light" },
    ];
    type Usage = {
      prompt_tokens: number;
      completion_tokens: number;
      prompt_tokens_details: { cached_tokens: number };
    };
    let previous = 0;
    const figures: { evaluated: number; appended: number }[] = [];
    for (let turn = 0; turn < 3; turn++) {
      const res = await post({
        messages,
        model: "local",
        tools: HA_TOOLS,
        max_tokens: 24,
        user: "01JF8Z3J6V8Q9W2X4Y5Z6A7B8D",
      });
      const body = (await res.json()) as {
        choices: { message: { content: string | null } }[];
        usage: Usage;
      };
      const u = body.usage;
      figures.push({
        evaluated: u.prompt_tokens - u.prompt_tokens_details.cached_tokens,
        appended: u.prompt_tokens - previous,
      });
      previous = u.prompt_tokens + u.completion_tokens;
      messages.push({ role: "assistant", content: body.choices[0]?.message.content ?? null });
      messages.push({ role: "user", content: `and now the lamp ${turn}` });
    }
    for (const f of figures.slice(1)) expect(f.evaluated).toBeLessThanOrEqual(f.appended + 1);
  }, 60_000);

  it("a local model id reaches none of the box's tools, memory or sessions", async () => {
    const reply = await readWhole(
      await post({
        model: "local",
        messages: [{ role: "user", content: "read MEMORY.md" }],
        tool_choice: "required",
        tools: [
          {
            type: "function",
            function: { name: "only_this", parameters: { type: "object", properties: {} } },
          },
        ],
      }),
    );
    expect(reply.calls.map((c) => c.name)).toEqual(["only_this"]);
    // A box tool named by the client is just a name the client offers: nothing on the box runs.
    const named = await post({
      model: "local",
      messages: [
        { role: "user", content: "hi" },
        {
          role: "assistant",
          content: null,
          tool_calls: [
            {
              id: "c1",
              type: "function",
              function: { name: "read", arguments: '{"path":"MEMORY.md"}' },
            },
          ],
        },
        { role: "tool", tool_call_id: "c1", content: "whatever the client says" },
      ],
      max_tokens: 8,
    });
    expect(named.status).toBe(200);
    // Nothing was stored: no session of the box holds these turns.
    const listed = await runCli(["sessions", "list", "--json"], { CLAWBOX_HOME: home });
    expect(listed.code).toBe(0);
    expect(JSON.parse(listed.stdout)).toEqual([]);
  }, 60_000);
});
