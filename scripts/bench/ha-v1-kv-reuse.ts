/**
 * ha-v1-kv-reuse: Home Assistant's `llama_cpp` integration resends its whole prompt
 * (system prompt with the entity overview, its tools, the whole chat log) on every
 * request. Through a real `clawbox run`'s `/v1/chat/completions` with the local model id,
 * over 10 HA-style turns (some with a tool call and HA's tool result), this divides the
 * prompt tokens the model evaluated (`prompt_tokens - cached_tokens`) by the tokens
 * newly appended since the previous request (this prompt minus the previous prompt and
 * its reply). With the KV prefix kept, the ratio stays near 1 (target <= 1.1).
 *
 *   npm run bench -- ha-v1-kv-reuse [--json] [--turns N] [--model PATH]
 */
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const args = process.argv.slice(2);
const json = args.includes("--json");
const turns = Number(argAfter("--turns") ?? 10);
const modelPath =
  argAfter("--model") ?? join(import.meta.dirname, "../../../shared/models/stories260K.gguf");
const TOKEN = "bench-server-token-0000000000";

function argAfter(flag: string): string | undefined {
  const index = args.indexOf(flag);
  return index >= 0 ? args[index + 1] : undefined;
}

const SYSTEM =
  "You are a voice assistant for Home Assistant.\nAnswer questions about the world truthfully.\nAnswer in plain text. Keep it simple and to the point.\nStatic Context: An overview of the areas and the devices in this smart home:\n- names: Kitchen Light\n  domain: light\n  areas: Kitchen\n- names: Living Room Lamp\n  domain: light\n  areas: Living Room\n";
const onOff = {
  type: "object",
  properties: { name: { type: "string", maxLength: 16 }, area: { type: "string", maxLength: 16 } },
};
const tools = [
  { name: "intent__HassTurnOn", description: "Turns on a device or entity.", parameters: onOff },
  { name: "intent__HassTurnOff", description: "Turns off a device or entity.", parameters: onOff },
].map((f) => ({ type: "function", function: f }));

interface Figures {
  turn: number;
  evaluated: number;
  appended: number;
}

async function start(home: string): Promise<{ child: ChildProcess; url: string }> {
  const bin = join(import.meta.dirname, "..", "..", "bin", "clawbox");
  const child = spawn(bin, ["run", "--port", "0", "--host", "127.0.0.1"], {
    env: { ...process.env, CLAWBOX_HOME: home },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  const url = await new Promise<string>((resolve, reject) => {
    const onData = (d: Buffer) => {
      out += d.toString();
      const found = /listening on (http:\S+)/.exec(out);
      if (found?.[1]) resolve(found[1]);
    };
    child.stdout?.on("data", onData);
    child.stderr?.on("data", onData);
    child.on("exit", () => reject(new Error(`clawbox run exited:\n${out}`)));
  });
  return { child, url };
}

if (!existsSync(modelPath)) {
  console.error(`ha-v1-kv-reuse: model not found: ${modelPath}`);
  process.exit(2);
}
const home = mkdtempSync(join(tmpdir(), "clawbox-bench-ha-v1-"));
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
          path: modelPath,
          threads: 1,
          contextSize: 8192,
          seed: 3,
          temperature: 0,
          maxArgChars: 16,
        },
      },
    },
  }),
);
const { child, url } = await start(home);
const figures: Figures[] = [];
try {
  const messages: unknown[] = [{ role: "system", content: SYSTEM }];
  let previous = 0;
  const ask = async (turn: number, extra: Record<string, unknown>) => {
    const res = await fetch(`${url}/v1/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
      body: JSON.stringify({
        messages,
        model: "local",
        tools,
        max_tokens: 48,
        top_p: 1.0,
        temperature: 0.7,
        user: "01JF8Z3J6V8Q9W2X4Y5Z6A7B8C",
        stream: false,
        ...extra,
      }),
    });
    if (!res.ok) throw new Error(`HTTP ${res.status}: ${await res.text()}`);
    const body = (await res.json()) as {
      choices: {
        message: {
          content: string | null;
          tool_calls?: {
            id: string;
            type: string;
            function: { name: string; arguments: string };
          }[];
        };
      }[];
      usage: {
        prompt_tokens: number;
        completion_tokens: number;
        prompt_tokens_details: { cached_tokens: number };
      };
    };
    const u = body.usage;
    figures.push({
      turn,
      evaluated: u.prompt_tokens - u.prompt_tokens_details.cached_tokens,
      appended: u.prompt_tokens - previous,
    });
    previous = u.prompt_tokens + u.completion_tokens;
    const message = body.choices[0]?.message;
    messages.push({
      role: "assistant",
      content: message?.content ?? null,
      ...(message?.tool_calls ? { tool_calls: message.tool_calls } : {}),
    });
    return message;
  };
  for (let turn = 1; turn <= turns; turn++) {
    messages.push({
      role: "user",
      content: `Turn ${turn}: turn the kitchen light ${turn % 2 ? "off" : "on"}`,
    });
    const reply = await ask(turn, turn % 2 ? { tool_choice: "required", max_tokens: 120 } : {});
    for (const call of reply?.tool_calls ?? [])
      messages.push({
        role: "tool",
        tool_call_id: call.id,
        content: JSON.stringify({
          data: {
            response_type: "action_done",
            data: {
              success: [{ name: "Kitchen Light", type: "entity", id: "light.kitchen_light" }],
              failed: [],
            },
          },
          error: null,
        }),
      });
    if (reply?.tool_calls?.length) await ask(turn, {});
    if (!json) process.stderr.write(`\rturn ${turn}/${turns}   `);
  }
} finally {
  child.kill("SIGTERM");
  rmSync(home, { recursive: true, force: true });
}

const sum = (rs: Figures[], key: "evaluated" | "appended") => rs.reduce((s, r) => s + r[key], 0);
const after = figures.slice(1);
const round = (v: number) => Math.round(v * 1000) / 1000;
const result = {
  model: modelPath.split("/").at(-1),
  turns,
  requests: figures.length,
  evalRatio: round(sum(figures, "evaluated") / sum(figures, "appended")),
  evalRatioAfterFirst: round(sum(after, "evaluated") / sum(after, "appended")),
  worstRequestRatio: round(Math.max(...after.map((r) => r.evaluated / r.appended))),
  firstPromptTokens: figures[0]?.evaluated ?? 0,
};
if (json) console.log(JSON.stringify(result));
else {
  console.log(
    `\nha-v1-kv-reuse on ${result.model}: ${turns} HA-style turns, ${result.requests} requests through /v1`,
  );
  for (const r of figures)
    console.log(
      `turn ${String(r.turn).padStart(2)}  evaluated ${r.evaluated} / appended ${r.appended}`,
    );
  console.log(
    `ratio ${result.evalRatio} (after the first request ${result.evalRatioAfterFirst}; target <= 1.1)`,
  );
}
