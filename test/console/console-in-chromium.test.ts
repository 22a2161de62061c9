/**
 * The web console driven in headless Chromium (Debian `chromium` + playwright-core, no
 * browser download) against a real `clawbox run` started by the test: login (wrong and
 * right token), a streamed chat against the fake OpenAI server, a transcript and its
 * JSONL export, the context budget bar, a memory search, and a model pull from a local
 * HTTP server whose progress bar reaches 100% and whose model becomes the local model
 * (config comments kept) without a restart. Screenshots go to test/.artifacts/console/.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import JSON5 from "json5";
import { type Browser, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  openaiText,
  openaiToolCall,
  type ScriptedServer,
  startFakeOpenAI,
} from "../fakes/openai-server.ts";
import { writeTinyGguf } from "../fixtures/tiny-gguf.ts";
import { consoleUrl } from "../support/console-session.ts";
import { CLAWBOX_BIN } from "../support/spawn-cli.ts";

const CHROMIUM = "/usr/bin/chromium";
const HAVE_CHROMIUM = existsSync(CHROMIUM);
if (!HAVE_CHROMIUM) console.warn(`console browser tests skipped: ${CHROMIUM} is not installed`);

const TOKEN = "console-e2e-token-0123456789";
const SHOTS = join(import.meta.dirname, "..", ".artifacts", "console");

interface ModelServer {
  url: string;
  bytes: number;
  sha256: string;
  stop(): void;
}

/** Serves one GGUF slowly (16 KB every 30 ms) so the progress bar has steps to show. */
async function startModelServer(dir: string): Promise<ModelServer> {
  const file = join(dir, "tiny-chat.gguf");
  await writeTinyGguf(file);
  const data = readFileSync(file);
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch() {
      let offset = 0;
      const body = new ReadableStream<Uint8Array>({
        async pull(controller) {
          if (offset >= data.length) {
            controller.close();
            return;
          }
          await Bun.sleep(30);
          const end = Math.min(offset + 16 * 1024, data.length);
          controller.enqueue(new Uint8Array(data.subarray(offset, end)));
          offset = end;
        },
      });
      return new Response(body, {
        headers: {
          "Content-Type": "application/octet-stream",
          "Content-Length": String(data.length),
        },
      });
    },
  });
  return {
    url: `http://127.0.0.1:${server.port}/tiny-chat.gguf`,
    bytes: data.length,
    sha256: createHash("sha256").update(data).digest("hex"),
    stop: () => server.stop(true),
  };
}

async function waitForListening(box: ChildProcess, output: () => string): Promise<string> {
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    const match = /listening on (http:\/\/\S+)/.exec(output());
    if (match?.[1]) return match[1];
    if (box.exitCode !== null) break;
    await Bun.sleep(50);
  }
  throw new Error(`clawbox run did not start:\n${output()}`);
}

describe.skipIf(!HAVE_CHROMIUM)("web console in headless Chromium", () => {
  let home: string;
  let configFile: string;
  let model: ScriptedServer;
  let files: ModelServer;
  let box: ChildProcess;
  let output = "";
  let base: string;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true });
    home = mkdtempSync(join(tmpdir(), "clawbox-console-"));
    model = await startFakeOpenAI();
    files = await startModelServer(home);
    const manifest = join(home, "manifest.json");
    writeFileSync(
      manifest,
      JSON.stringify({
        models: [
          {
            name: "tiny-chat",
            kind: "chat",
            description: "test model served from 127.0.0.1",
            quantization: "F32",
            contextLength: 512,
            minRamMb: 64,
            license: "MIT",
            files: [
              { name: "tiny-chat.gguf", url: files.url, sha256: files.sha256, size: files.bytes },
            ],
          },
          {
            name: "tiny-unverified",
            kind: "chat",
            description: "the same file, with no checksum published",
            quantization: "F32",
            contextLength: 512,
            minRamMb: 32,
            license: "MIT",
            files: [
              { name: "tiny-unverified.gguf", url: files.url, sha256: null, size: files.bytes },
            ],
          },
        ],
      }),
    );
    configFile = join(home, "clawbox.json");
    writeFileSync(
      configFile,
      [
        "// console e2e box",
        "{",
        `  server: { token: "${TOKEN}" }, // login required`,
        "  models: {",
        "    primary: 'cloud', // the fake OpenAI server",
        "    providers: {",
        `      cloud: { kind: 'openai', baseUrl: '${model.url}', model: 'fake', authProfiles: [{ id: 'k', apiKey: 'sk-test-not-secret-1' }] },`,
        "      local: { kind: 'local', threads: 1 }, // no file yet",
        "    },",
        "  },",
        "  context: { bootstrapMaxChars: 2000 },",
        "}",
        "",
      ].join("\n"),
    );
    const workspace = join(home, "workspace");
    mkdirSync(join(workspace, "memory"), { recursive: true });
    writeFileSync(join(workspace, "MEMORY.md"), "# Memory\n\n- The garage door code is 4711.\n");
    writeFileSync(join(workspace, "TOOLS.md"), `# Tools\n\n${"Long tool notes. ".repeat(400)}\n`);
    box = spawn(CLAWBOX_BIN, ["run", "--port", "0"], {
      env: {
        ...process.env,
        CLAWBOX_HOME: home,
        CLAWBOX_CONFIG: "",
        CLAWBOX_MODEL_MANIFEST: manifest,
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    box.stdout?.on("data", (d) => {
      output += d;
    });
    box.stderr?.on("data", (d) => {
      output += d;
    });
    base = await waitForListening(box, () => output);
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
      ],
    });
    page = await browser.newPage({ viewport: { width: 390, height: 844 } });
  }, 90_000);

  afterAll(async () => {
    await browser?.close();
    box?.kill("SIGTERM");
    files?.stop();
    await model?.close();
    if (home) rmSync(home, { recursive: true, force: true });
  });

  it("refuses a wrong token and logs in with the right one (a token in this origin's storage, no cookie)", async () => {
    await page.goto(base);
    await page.waitForSelector("input[name=secret]");
    expect(page.url()).toBe(`${base}/console/login`);
    await page.fill("input[name=secret]", "not-the-token-at-all");
    const [wrong] = await Promise.all([
      page.waitForResponse((r) => r.url().endsWith("/console/login")),
      page.click("button[type=submit]"),
    ]);
    expect(wrong.status()).toBe(401);
    await expect(page.locator(".error").textContent()).resolves.toContain("Wrong secret");
    await page.screenshot({ path: join(SHOTS, "login.png") });
    await page.fill("input[name=secret]", TOKEN);
    await Promise.all([page.waitForURL(`${base}/`), page.click("button[type=submit]")]);
    await page.waitForSelector("#chat-input");
    expect(await page.context().cookies()).toEqual([]);
    const kept = await page.evaluate(() => localStorage.getItem("clawbox.console.session"));
    expect(kept).toMatch(/^[A-Za-z0-9_-]{40,}$/);
    expect(kept).not.toContain(TOKEN);
    // The page on screen is the console: the login's answer, token and all, was replaced.
    await expect(page.locator("body").getAttribute("data-session")).resolves.toBeNull();
  });

  it("logs a second browser in once through a one-time link from `clawbox console url`", async () => {
    const link = await consoleUrl(home, base);
    expect(link).toContain("/console/login?ticket=");
    const other = await browser.newContext({ viewport: { width: 390, height: 844 } });
    try {
      const phone = await other.newPage();
      await phone.goto(link);
      await phone.waitForSelector("#chat-input");
      expect(phone.url()).toBe(`${base}/`);
      expect(await other.cookies()).toEqual([]);
      await phone.screenshot({ path: join(SHOTS, "login-link.png") });
      // Used once: a third browser with the same link sees the login form and why.
      const third = await (await browser.newContext()).newPage();
      const again = await third.goto(link);
      expect(again?.status()).toBe(401);
      await expect(third.locator(".error").textContent()).resolves.toContain("not valid");
      await expect(third.locator("input[name=secret]").count()).resolves.toBe(1);
      await third.context().close();
    } finally {
      await other.close();
    }
  });

  it("streams a chat reply from the fake provider", async () => {
    model.enqueue(openaiText("Hello from the fake model, streamed word by word."));
    await page.fill("#chat-input", "Say hello");
    const [response] = await Promise.all([
      page.waitForResponse((r) => r.url().endsWith("/console/api/chat")),
      page.click("#chat-send"),
    ]);
    expect(response.headers()["content-type"]).toContain("text/event-stream");
    const done = page.locator(".entry.assistant.done .text").last();
    await done.waitFor();
    await expect(done.textContent()).resolves.toBe(
      "Hello from the fake model, streamed word by word.",
    );
    // Seen, not only in the DOM: the reply's box has a size on the page.
    expect(await done.isVisible()).toBe(true);
    const box = await done.boundingBox();
    expect(box?.width ?? 0).toBeGreaterThan(0);
    expect(box?.height ?? 0).toBeGreaterThan(0);
    const sent = JSON.stringify(model.requests.at(-1)?.body ?? {});
    expect(sent).toContain("Say hello");
    await page.screenshot({ path: join(SHOTS, "chat.png"), fullPage: true });
    const overflow = await page.evaluate<number>("document.documentElement.scrollWidth");
    expect(overflow).toBeLessThanOrEqual(390);
  });

  it("shows a tool call folded with its result, and an attached image", async () => {
    model.enqueue(
      openaiToolCall("memory_search", JSON.stringify({ query: "garage" }), { id: "call_1" }),
      openaiText("The code is 4711."),
    );
    const png = join(home, "dot.png");
    writeFileSync(
      png,
      Buffer.from(
        "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==",
        "base64",
      ),
    );
    const before = await page.locator(".entry.assistant.done").count();
    await page.setInputFiles("#chat-images", png);
    await page.fill("#chat-input", "What is the garage code?");
    await page.click("#chat-send");
    await expect
      .poll(() => page.locator(".entry.assistant.done").count(), { timeout: 30_000 })
      .toBeGreaterThan(before);
    const bubble = page.locator(".entry.assistant.done").last();
    await expect(bubble.locator(".text").textContent()).resolves.toBe("The code is 4711.");
    const tool = bubble.locator("details.tool");
    await expect(tool.locator("summary").textContent()).resolves.toBe("tool: memory_search");
    await expect(tool.getAttribute("open")).resolves.toBeNull();
    await expect(tool.locator(".tool-result").textContent()).resolves.toContain("4711");
    await expect(page.locator(".entry.user img.shot").last().getAttribute("src")).resolves.toMatch(
      /^data:image\/png;base64,/,
    );
    const request = JSON.stringify(model.requests.at(-2)?.body ?? {});
    expect(request).toContain("image");
    await page.screenshot({ path: join(SHOTS, "chat-tool.png"), fullPage: true });
  });

  it("opens the session's transcript and exports it as JSONL", async () => {
    await page.goto(`${base}/#sessions`);
    await page.locator("a.session-link").first().click();
    await page.waitForSelector("#transcript .entry.user");
    await expect(page.locator("#transcript .entry.user .text").first().textContent()).resolves.toBe(
      "Say hello",
    );
    await expect(
      page.locator("#transcript .entry.assistant .text").first().textContent(),
    ).resolves.toContain("Hello from the fake model");
    const [download] = await Promise.all([
      page.waitForEvent("download"),
      page.click("#export-jsonl"),
    ]);
    expect(download.suggestedFilename()).toMatch(/\.jsonl$/);
    const jsonl = readFileSync((await download.path()) ?? "", "utf8");
    const lines = jsonl
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { type: string });
    expect(lines[0]?.type).toBe("session");
    expect(lines.filter((l) => l.type === "message").length).toBeGreaterThanOrEqual(2);
    await page.screenshot({ path: join(SHOTS, "transcript.png"), fullPage: true });
  });

  it("draws the context budget as a stacked bar with labelled parts and marks truncated files", async () => {
    await page.goto(`${base}/#context`);
    await page.waitForSelector("#budget-bar .seg", { state: "attached" });
    const segments = page.locator("#budget-bar .seg");
    const shown = await segments.evaluateAll((els) =>
      els.map((e) => ({
        label: e.getAttribute("data-label"),
        tokens: Number(e.getAttribute("data-tokens")),
        width: e.getBoundingClientRect().width,
      })),
    );
    // The parts with tokens, in the legend's order; an empty part has no segment.
    const order = [
      "system prompt",
      "bootstrap files",
      "skills",
      "tools",
      "history",
      "reply reserve",
      "free",
    ];
    expect(shown.map((s) => s.label)).toEqual(
      order.filter((l) => shown.some((s) => s.label === l)),
    );
    expect(shown.map((s) => s.label)).toEqual(
      expect.arrayContaining(["system prompt", "bootstrap files", "tools", "reply reserve"]),
    );
    expect(shown.every((s) => s.tokens > 0)).toBe(true);
    // What a person sees: every part is drawn (the CSP once blanked them all to 0 px) and
    // together they fill the bar.
    for (const s of shown) expect(s.width, s.label ?? "").toBeGreaterThan(0);
    const inner = await page.locator("#budget-bar").evaluate((e) => e.clientWidth);
    const sum = shown.reduce((a, s) => a + s.width, 0);
    expect(Math.abs(sum - inner)).toBeLessThanOrEqual(1);
    await expect(page.locator("#budget-legend li").count()).resolves.toBe(7);
    const tools = page.locator("#context-files tr", { hasText: "TOOLS.md" });
    await expect(tools.locator(".badge").textContent()).resolves.toBe("truncated");
    await page.screenshot({ path: join(SHOTS, "context.png"), fullPage: true });
  });

  it("searches memory and shows the hit with its score", async () => {
    await page.goto(`${base}/#memory`);
    await page.fill("#memory-query", "garage door");
    await page.click("#memory-query + button");
    const hit = page.locator("#memory-results .hit").first();
    await hit.waitFor();
    await expect(hit.textContent()).resolves.toMatch(/MEMORY\.md:\d+-\d+ score \d\.\d{3}.*4711/s);
    await page.screenshot({ path: join(SHOTS, "memory.png"), fullPage: true });
  });

  it("pulls a model with a live progress bar to 100%, and it becomes the local model without a restart", async () => {
    await page.goto(`${base}/#models`);
    // Before any pull there is no bar at all, and the primary is not offered as its own fallback.
    await page.locator('tr[data-model="tiny-chat"] button.pull').waitFor();
    await expect(page.locator("#pull-progress").isVisible()).resolves.toBe(false);
    const primary = await page.locator("#primary").inputValue();
    await expect(page.locator(`#fallback option[value="${primary}"]`).count()).resolves.toBe(0);
    await page.locator('tr[data-model="tiny-chat"] button.pull').click();
    const seen = new Set<string>();
    const bar = page.locator("#pull-progress");
    const deadline = Date.now() + 30_000;
    while (Date.now() < deadline) {
      seen.add((await bar.getAttribute("aria-valuenow")) ?? "");
      if ((await bar.getAttribute("data-state")) === "done") break;
      await Bun.sleep(50);
    }
    await expect(bar.getAttribute("aria-valuenow")).resolves.toBe("100");
    expect([...seen].some((v) => Number(v) > 0 && Number(v) < 100)).toBe(true);
    await page.screenshot({ path: join(SHOTS, "models.png"), fullPage: true });
    const installed = join(home, "models", "tiny-chat", "tiny-chat.gguf");
    expect(createHash("sha256").update(readFileSync(installed)).digest("hex")).toBe(files.sha256);
    const text = readFileSync(configFile, "utf8");
    expect(text).toContain("// the fake OpenAI server");
    expect(text).toContain("// no file yet");
    expect(JSON5.parse(text).models.providers.local.path).toBe(installed);
    await page.locator('tr[data-model="tiny-chat"] button.use').waitFor();
    const state = await page.evaluate(async () =>
      (
        await fetch("/console/api/models", {
          headers: { "X-Clawbox-Session": localStorage.getItem("clawbox.console.session") ?? "" },
        })
      ).json(),
    );
    expect(state).toMatchObject({ localPath: installed, primary: "cloud" });
  });

  it("shows the doctor checks, channel and MQTT state, uptime and RSS", async () => {
    await page.goto(`${base}/#status`);
    await page.waitForSelector("#checks tbody tr");
    // The pulled tiny-chat model's template row comes from its header: no llama.cpp load.
    await expect(page.locator("#checks").textContent()).resolves.toMatch(
      /model local chat template.*(carries its own chat template|no chat template in the GGUF)/,
    );
    await expect(page.locator("#vitals").textContent()).resolves.toMatch(
      /up \d+ s, RSS \d+(\.\d+)? MB/,
    );
    await expect(page.locator(".area-channels").textContent()).resolves.toContain("not configured");
    await expect(page.locator(".area-mqtt").textContent()).resolves.toContain("not configured");
    await page.screenshot({ path: join(SHOTS, "status.png"), fullPage: true });
  });

  it("a running box picks up a model setting edited in the config file", async () => {
    const text = readFileSync(configFile, "utf8").replace("primary: 'cloud'", "primary: 'local'");
    writeFileSync(configFile, text);
    const deadline = Date.now() + 15_000;
    let primary = "";
    while (Date.now() < deadline) {
      const state = await page.evaluate(async () =>
        (
          await fetch("/console/api/models", {
            headers: { "X-Clawbox-Session": localStorage.getItem("clawbox.console.session") ?? "" },
          })
        ).json(),
      );
      primary = (state as { primary: string }).primary;
      if (primary === "local") break;
      await Bun.sleep(200);
    }
    expect(primary).toBe("local");
  });

  it("guards the API: no session header or a non-JSON body is refused; bearer API unchanged; failed logins limited", async () => {
    const anonymous = await fetch(`${base}/console/api/sessions`);
    expect(anonymous.status).toBe(401);
    expect(await anonymous.text()).not.toMatch(/token/i);
    const guarded = await page.evaluate(async () => {
      const token = localStorage.getItem("clawbox.console.session") ?? "";
      const post = (headers: Record<string, string>, body: string) =>
        fetch("/console/api/models/chain", { method: "POST", headers, body }).then((r) => r.status);
      const json = JSON.stringify({ primary: "cloud", fallbacks: [] });
      return {
        noHeader: await post({ "Content-Type": "application/json" }, json),
        wrong: await post({ "Content-Type": "application/json", "X-Clawbox-Session": "x" }, json),
        form: await post({ "Content-Type": "text/plain", "X-Clawbox-Session": token }, json),
        ok: await post({ "Content-Type": "application/json", "X-Clawbox-Session": token }, json),
      };
    });
    expect(guarded).toEqual({ noHeader: 401, wrong: 401, form: 415, ok: 200 });
    model.enqueue(openaiText("bearer still works"));
    const api = await fetch(`${base}/api/chat`, {
      method: "POST",
      headers: { Authorization: `Bearer ${TOKEN}`, "Content-Type": "application/json" },
      body: JSON.stringify({ message: "hi" }),
    });
    expect(api.status).toBe(200);
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) {
      const res = await fetch(`${base}/console/login`, {
        method: "POST",
        headers: { "Content-Type": "application/x-www-form-urlencoded" },
        body: `token=guess-${i}`,
        redirect: "manual",
      });
      statuses.push(res.status);
    }
    // The used link opened again in the test above was this address's first failure.
    expect(statuses).toEqual([401, 401, 401, 401, 429, 429]);
    const blocked = await fetch(`${base}/console/login`, {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
      body: `token=${TOKEN}`,
      redirect: "manual",
    });
    expect(blocked.status).toBe(429);
    expect(Number(blocked.headers.get("retry-after"))).toBeGreaterThan(0);
  });

  it("a page that finishes loading after the person moved on does not replace the page they are on", async () => {
    await page.goto(`${base}/#models`);
    await page.locator("#chat-models").waitFor();
    let release = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let statusAsked = false;
    await page.route("**/console/api/status", async (route) => {
      statusAsked = true;
      await held;
      await route.continue();
    });
    try {
      await page.goto(`${base}/#status`);
      while (!statusAsked) await Bun.sleep(20);
      await page.goto(`${base}/#memory`);
      await page.locator("#memory-query").waitFor();
      const drawn = page.waitForResponse((r) => r.url().endsWith("/console/api/status"));
      release();
      await drawn;
      await Bun.sleep(300);
      await expect(page.locator("main h1").textContent()).resolves.toBe("Memory");
    } finally {
      release();
      await page.unroute("**/console/api/status");
    }
  });

  it("after Use, the Models page no longer shows the finished pull's message", async () => {
    await page.goto(`${base}/#models`);
    await page.locator("#chat-models").waitFor();
    await expect(page.locator("#pull-status").textContent()).resolves.toContain("installed");
    const used = await page.evaluate(
      async () =>
        (
          await fetch("/console/api/models/activate", {
            method: "POST",
            headers: {
              "Content-Type": "application/json",
              "X-Clawbox-Session": localStorage.getItem("clawbox.console.session") ?? "",
            },
            body: JSON.stringify({ name: "tiny-chat" }),
          })
        ).status,
    );
    expect(used).toBe(200);
    // Away and back, waiting for each page to be drawn, so the Models page read is a new one.
    await page.goto(`${base}/#status`);
    await page.locator("main h1", { hasText: "Status" }).waitFor();
    await page.goto(`${base}/#models`);
    await page.locator("#chat-models").waitFor();
    await expect(page.locator("#pull-status").textContent()).resolves.toBe("");
    await expect(page.locator("#pull-progress").isVisible()).resolves.toBe(false);
  });

  it("pulls a model with no published checksum only when the person ticks that choice, then names its sha256", async () => {
    await page.goto(`${base}/#status`);
    await page.locator("main h1", { hasText: "Status" }).waitFor();
    await page.goto(`${base}/#models`);
    const row = page.locator('tr[data-model="tiny-unverified"]');
    await row.locator("button.pull").waitFor();
    await expect(row.locator(".badge.warn").textContent()).resolves.toBe("no checksum");
    // Pull without the tick: refused before anything is downloaded, in plain words.
    await row.locator("button.pull").click();
    const status = page.locator("#pull-status");
    await expect.poll(() => status.textContent()).toContain("no published checksum");
    await expect(status.textContent()).resolves.toContain("download without a checksum");
    expect(existsSync(join(home, "models", "tiny-unverified"))).toBe(false);
    await page.screenshot({ path: join(SHOTS, "models-unverified-refused.png"), fullPage: true });
    const overflow = await page.evaluate<number>("document.documentElement.scrollWidth");
    expect(overflow).toBeLessThanOrEqual(390);
    // With the tick: the download runs, and the finished message names the sha256 it got.
    await row.locator("input.allow-unverified").check();
    await row.locator("button.pull").click();
    await expect
      .poll(() => status.textContent(), { timeout: 30_000 })
      .toContain(`its sha256 is ${files.sha256}`);
    expect(existsSync(join(home, "models", "tiny-unverified", "tiny-unverified.gguf"))).toBe(true);
    await page.locator('tr[data-model="tiny-unverified"] button.use').waitFor();
  });
});
