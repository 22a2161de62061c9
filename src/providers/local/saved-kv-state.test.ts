import {
  copyFileSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { LlamaContextSequence } from "node-llama-cpp";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { writeTinyGguf } from "../../../test/fixtures/tiny-gguf.ts";
import { collectStream } from "../../../test/support/collect-stream.ts";
import type { LocalProviderConfig } from "../../config/index.ts";
import type { AssistantMessage, Message } from "../../messages/index.ts";
import { createLogger } from "../../system/index.ts";
import type { ProviderRequest } from "../provider.ts";
import { LocalProvider, type LocalProviderDeps } from "./local-provider.ts";

// Real llama.cpp on the project's tiny random-weights GGUF: states are saved by
// node-llama-cpp and loaded back into real sequences.

let modelPath: string;
beforeAll(async () => {
  modelPath = join(modelFolder(), "tiny.gguf");
  await writeTinyGguf(modelPath);
});

const open: LocalProvider[] = [];
const folders: string[] = [];
afterEach(async () => {
  vi.restoreAllMocks();
  for (const provider of open.splice(0)) await provider.dispose();
});
afterAll(() => {
  for (const folder of folders) rmSync(folder, { recursive: true, force: true });
});

const systemPrompt = `You run a small home. ${"Keep replies short and kind. ".repeat(12)}`;

function config(overrides: Partial<LocalProviderConfig> = {}): LocalProviderConfig {
  return {
    kind: "local",
    path: modelPath,
    threads: 1,
    temperature: 0,
    maxTokens: 6,
    contextSize: 1024,
    sessions: 2,
    ...overrides,
  };
}

function provider(
  kvCacheDir: string,
  overrides: Partial<LocalProviderConfig> = {},
  deps: LocalProviderDeps = {},
): { provider: LocalProvider; lines: string[] } {
  const lines: string[] = [];
  const logger = createLogger({ level: "debug", write: (line) => lines.push(line) });
  const made = new LocalProvider("local", config(overrides), { logger, kvCacheDir, ...deps });
  open.push(made);
  return { provider: made, lines };
}

function request(sessionId: string, messages: Message[]): ProviderRequest {
  return { systemPrompt, messages, tools: [], sessionId };
}

async function turn(p: LocalProvider, sessionId: string, messages: Message[]) {
  const { final } = await collectStream(p, request(sessionId, messages));
  if (final.type !== "done") throw new Error(`turn failed: ${JSON.stringify(final)}`);
  const usage = final.message.usage;
  return {
    message: final.message as AssistantMessage,
    input: usage.input,
    prompt: usage.input + usage.cacheRead,
    last: p.stats().kvCache?.lastRequest,
  };
}

const ask = (text: string): Message[] => [{ role: "user", content: text, timestamp: 1 }];

function modelFolder(): string {
  const folder = mkdtempSync(join(tmpdir(), "clawbox-kv-model-"));
  folders.push(folder);
  return folder;
}

function kvDir(): string {
  const folder = mkdtempSync(join(tmpdir(), "clawbox-kv-"));
  folders.push(folder);
  return folder;
}

/** The one model folder under `root` and its state files. */
function stateFiles(root: string): { folder: string; kv: string[]; json: string[] } {
  const [name] = readdirSync(root);
  if (!name) throw new Error("no model folder");
  const folder = join(root, name);
  const files = readdirSync(folder);
  return {
    folder,
    kv: files.filter((f) => f.endsWith(".kv")),
    json: files.filter((f) => /^[0-9a-f]{32}\.json$/.test(f)),
  };
}

describe("saved KV-cache states", () => {
  it("a new session loads the stable prefix another session evaluated, instead of evaluating it", async () => {
    const root = kvDir();
    const { provider: p } = provider(root);
    const first = await turn(p, "a", ask("Hello"));
    expect(first.last?.prefixEvaluated).toBeGreaterThan(50);
    expect(first.input).toBe(first.prompt);
    const second = await turn(p, "b", ask("Good morning"));
    expect(second.last?.loadedFrom).toBe("prefix");
    expect(second.last?.loadedTokens).toBe(first.last?.prefixTokens);
    expect(second.input).toBe(second.prompt - (second.last?.prefixTokens ?? 0));
    expect(second.message.content.length).toBeGreaterThan(0);
    await p.dispose();
    const { folder, kv, json } = stateFiles(root);
    for (const name of [...kv, ...json]) expect(statSync(join(folder, name)).mode & 0o077).toBe(0);
  });

  it("after a restart, the first turn loads the prefix, and a conversation its history", async () => {
    const root = kvDir();
    const before = provider(root).provider;
    const history: Message[] = ask("Hello");
    const first = await turn(before, "a", history);
    history.push(first.message, { role: "user", content: "And now?", timestamp: 2 });
    await before.dispose();

    const after = provider(root).provider;
    const fresh = await turn(after, "new", ask("Hi there"));
    expect(fresh.last?.loadedFrom).toBe("prefix");
    expect(fresh.last?.prefixEvaluated).toBe(0);
    const resumed = await turn(after, "a", history);
    expect(resumed.last?.loadedFrom).toBe("own");
    const appended = resumed.prompt - (first.prompt + first.message.usage.output);
    expect(resumed.input).toBeLessThanOrEqual(appended + 1);
  });

  it("a session that gave its sequence away gets its state back", async () => {
    const root = kvDir();
    const { provider: p } = provider(root, { sessions: 1 });
    const history: Message[] = ask("Hello");
    const first = await turn(p, "a", history);
    await turn(p, "b", ask("Somebody else"));
    history.push(first.message, { role: "user", content: "Me again", timestamp: 2 });
    const back = await turn(p, "a", history);
    expect(back.last?.loadedFrom).toBe("own");
    const appended = back.prompt - (first.prompt + first.message.usage.output);
    expect(back.input).toBeLessThanOrEqual(appended + 1);
  });

  it("kvCacheDiskMB 0 saves nothing", async () => {
    const root = kvDir();
    const { provider: p } = provider(root, { kvCacheDiskMB: 0 });
    await turn(p, "a", ask("Hello"));
    const second = await turn(p, "b", ask("Hi"));
    expect(second.input).toBe(second.prompt);
    expect(readdirSync(root)).toEqual([]);
  });
});

describe("disk used by saved states", () => {
  function folderBytes(root: string): number {
    let sum = 0;
    for (const name of readdirSync(root)) {
      for (const file of readdirSync(join(root, name)))
        sum += statSync(join(root, name, file)).size;
    }
    return sum;
  }

  it("stays within kvCacheDiskMB: sessions' states go before the shared prefix", async () => {
    const root = kvDir();
    const { provider: p } = provider(root, { sessions: 1, kvCacheDiskMB: 1 });
    for (let i = 0; i < 9; i += 1)
      await turn(p, `s${i}`, ask(`Hello number ${i}, how are you today?`));
    await p.dispose();
    expect(folderBytes(root)).toBeLessThanOrEqual(1024 * 1024 + 4096);
    const { folder, json } = stateFiles(root);
    const owners = json.map((name) => JSON.parse(readFileSync(join(folder, name), "utf8")).owner);
    expect(owners).toContain(undefined);
    expect(owners.length).toBeLessThan(9);
    // The least recently used went: the newest sessions are kept.
    expect(owners).toContain("session:s8");
    expect(owners).toContain("session:s7");
    expect(owners).not.toContain("session:s0");
  });

  it("the states of a model file that is gone are removed", async () => {
    const root = kvDir();
    const copy = join(modelFolder(), "gone.gguf");
    copyFileSync(modelPath, copy);
    const { provider: before } = provider(root, { path: copy });
    await turn(before, "a", ask("Hello"));
    await before.dispose();
    expect(readdirSync(root)).toHaveLength(1);
    rmSync(copy);
    const other = join(modelFolder(), "other.gguf");
    await writeTinyGguf(other, { seed: 9 });
    const { provider: after, lines } = provider(root, { path: other });
    await turn(after, "a", ask("Hello"));
    const folders = readdirSync(root);
    expect(folders).toHaveLength(1);
    expect(readFileSync(join(root, folders[0] ?? "", "model.json"), "utf8")).toContain(other);
    expect(lines.join("\n")).toMatch(
      /removing saved KV-cache states of a model that is gone.*model file missing/,
    );
  });
});

describe("a saved state that does not fit is refused before loading", () => {
  async function savedWith(root: string, overrides: Partial<LocalProviderConfig> = {}) {
    const { provider: p } = provider(root, overrides);
    await turn(p, "a", ask("Hello"));
    await p.dispose();
  }

  it("another context size: not loaded; the turn evaluates the prompt and answers", async () => {
    const root = kvDir();
    await savedWith(root, { contextSize: 1024 });
    const load = vi.spyOn(LlamaContextSequence.prototype, "loadStateFromFile");
    const { provider: p, lines } = provider(root, { contextSize: 2048 });
    const result = await turn(p, "b", ask("Hello"));
    expect(load).not.toHaveBeenCalled();
    expect(result.input).toBe(result.prompt);
    expect(result.message.content.length).toBeGreaterThan(0);
    expect(lines.join("\n")).toMatch(/saved with contextSize 1024, this context has 2048/);
  });

  /** States saved with this test's model, planted in the folder of the model at `other`. */
  async function plantedFor(root: string, other: string): Promise<string> {
    await savedWith(root);
    // The other model opens its own folder; then this model's states are copied there,
    // as a wrong key on disk (or a hash collision) would look.
    const probe = provider(root, { path: other }).provider;
    await probe.countTokens("x");
    await probe.dispose();
    const folders = readdirSync(root).map((name) => join(root, name));
    const mine = folders.find((dir) =>
      readFileSync(join(dir, "model.json"), "utf8").includes(modelPath),
    );
    const theirs = folders.find((dir) => dir !== mine);
    if (!mine || !theirs) throw new Error("two model folders expected");
    for (const name of readdirSync(mine).filter((f) => f !== "model.json"))
      copyFileSync(join(mine, name), join(theirs, name));
    return theirs;
  }

  it("another model file with the same tokenizer and template (other weights): removed unloaded", async () => {
    const root = kvDir();
    const other = join(modelFolder(), "tiny-other.gguf");
    await writeTinyGguf(other, { seed: 7 });
    await plantedFor(root, other);
    const load = vi.spyOn(LlamaContextSequence.prototype, "loadStateFromFile");
    const { provider: p, lines } = provider(root, { path: other });
    const result = await turn(p, "b", ask("Hello"));
    // Same shapes: llama.cpp would load the other weights' keys and values without a word.
    expect(load).not.toHaveBeenCalled();
    expect(result.input).toBe(result.prompt);
    expect(result.message.content.length).toBeGreaterThan(0);
    expect(lines.join("\n")).toMatch(/removed: it cannot be loaded.*saved with another model file/);
  });

  it("another chat template (a model file with the same weights): not loaded", async () => {
    const root = kvDir();
    const other = join(modelFolder(), "tiny-llama3.gguf");
    await writeTinyGguf(other, {
      chatTemplate: "{% for m in messages %}<|start|>{{ m.content }}<|end|>{% endfor %}",
      specialTokens: ["<|start|>", "<|end|>"],
    });
    await plantedFor(root, other);
    const load = vi.spyOn(LlamaContextSequence.prototype, "loadStateFromFile");
    const { provider: p, lines } = provider(root, { path: other });
    const result = await turn(p, "b", ask("Hello"));
    expect(load).not.toHaveBeenCalled();
    expect(result.input).toBe(result.prompt);
    expect(result.message.content.length).toBeGreaterThan(0);
    expect(lines.join("\n")).toMatch(/saved with another model file/);
  });

  it("a state written by an older version: removed with a log line; the turn evaluates and answers", async () => {
    const root = kvDir();
    await savedWith(root);
    const { folder, json } = stateFiles(root);
    for (const name of json) {
      const path = join(folder, name);
      const metadata = JSON.parse(readFileSync(path, "utf8"));
      metadata.scope.runtime = "node-llama-cpp 3.20.0; llama.cpp ggml-org/llama.cpp@b6000";
      writeFileSync(path, JSON.stringify(metadata));
    }
    const load = vi.spyOn(LlamaContextSequence.prototype, "loadStateFromFile");
    const { provider: p, lines } = provider(root);
    const result = await turn(p, "b", ask("Hello"));
    expect(load).not.toHaveBeenCalled();
    expect(result.input).toBe(result.prompt);
    expect(result.message.content.length).toBeGreaterThan(0);
    expect(lines.join("\n")).toMatch(
      /removed: it cannot be loaded.*written by node-llama-cpp 3\.20\.0/,
    );
  });
});

describe("a damaged state or a full disk: the turn evaluates and answers, a log line says why", () => {
  async function savedPrefix(root: string) {
    const { provider: p } = provider(root);
    await turn(p, "a", ask("Hello"));
    await p.dispose();
    return stateFiles(root);
  }

  it("a truncated state file", async () => {
    const root = kvDir();
    const { folder, kv } = await savedPrefix(root);
    for (const name of kv) {
      const bytes = readFileSync(join(folder, name));
      writeFileSync(join(folder, name), bytes.subarray(0, bytes.length >> 1));
    }
    const load = vi.spyOn(LlamaContextSequence.prototype, "loadStateFromFile");
    const { provider: p, lines } = provider(root);
    const result = await turn(p, "b", ask("Hello"));
    expect(load).not.toHaveBeenCalled();
    expect(result.input).toBe(result.prompt);
    expect(result.message.content.length).toBeGreaterThan(0);
    expect(lines.join("\n")).toMatch(/refused and removed.*truncated/);
  });

  it("a corrupted state file (same size, other bytes)", async () => {
    const root = kvDir();
    const { folder, kv } = await savedPrefix(root);
    for (const name of kv) {
      const bytes = readFileSync(join(folder, name));
      for (let i = 64; i < bytes.length; i += 101) bytes[i] = (bytes[i] ?? 0) ^ 0xff;
      writeFileSync(join(folder, name), bytes);
    }
    const load = vi.spyOn(LlamaContextSequence.prototype, "loadStateFromFile");
    const { provider: p, lines } = provider(root);
    const result = await turn(p, "b", ask("Hello"));
    expect(load).not.toHaveBeenCalled();
    expect(result.input).toBe(result.prompt);
    expect(lines.join("\n")).toMatch(/refused and removed.*corrupted/);
  });

  it("a full disk: the state is not kept, no temp file is left, the turn answers", async () => {
    const root = kvDir();
    const failing = {
      async save(_sequence: LlamaContextSequence, path: string): Promise<number> {
        writeFileSync(path, Buffer.alloc(4096));
        throw Object.assign(new Error("ENOSPC: no space left on device, write"), {
          code: "ENOSPC",
        });
      },
    };
    const { provider: p, lines } = provider(root, {}, { kvStateWriter: failing });
    const first = await turn(p, "a", ask("Hello"));
    const second = await turn(p, "b", ask("Hi"));
    expect(first.message.content.length).toBeGreaterThan(0);
    expect(second.message.content.length).toBeGreaterThan(0);
    expect(second.input).toBe(second.prompt);
    const { folder } = stateFiles(root);
    expect(readdirSync(folder)).toEqual(["model.json"]);
    expect(lines.join("\n")).toMatch(/not saved: writing it failed.*no space left on device/);
  });
});
