/**
 * From a freshly started box to an owner chatting on QQ with a camera and a reminder,
 * using only a phone's browser (issue 24): headless Debian Chromium at 390×844 against a
 * real `clawbox run` (no channel configured, the fake OpenAI server as the model) and the
 * fake QQ open platform. Log in with the console secret → Channels: set QQ up (a wrong
 * secret is named by Test, the right one connects without a restart) → a QQ stranger
 * sends /pair and gets a code → Owners: Approve → they are told, and their next turn has
 * the owner tools → Workspace: a camera added to TOOLS.md (a mistake shown on its line
 * first) → the next turn offers camera_snapshot → Reminders: one in a minute for that QQ
 * user → delivered to them once. Then every page (and the login page) at 390 and 1280
 * px: nothing wider than the window, no visible heading, control, table or bar collapsed
 * to 0 px, the context bar's parts drawn and filling it, no console error (CSP included)
 * anywhere. Screenshots in test/.artifacts/console-setup/.
 */
import { Database } from "bun:sqlite";
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import JSON5 from "json5";
import { type Browser, type BrowserContext, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PAGES } from "../../src/console/page-shell.ts";
import { openaiText, type ScriptedServer, startFakeOpenAI } from "../fakes/openai-server.ts";
import { FakeQqPlatform, waitUntil } from "../fakes/qq-platform.ts";
import { consoleUrl } from "../support/console-session.ts";
import { layoutProblems } from "../support/layout-problems.ts";
import { CLAWBOX_BIN } from "../support/spawn-cli.ts";

const CHROMIUM = "/usr/bin/chromium";
const HAVE_CHROMIUM = existsSync(CHROMIUM);
if (!HAVE_CHROMIUM)
  console.warn(`console set-up browser test skipped: ${CHROMIUM} is not installed`);

const SHOTS = join(import.meta.dirname, "..", ".artifacts", "console-setup");
const USER = "USER_OPENID_7F3A";
const REMINDER_REPLY = "Time to take the bins out!";

/** Names of the tools offered in a recorded chat-completions request. */
const toolsOf = (body: Record<string, unknown>): string[] =>
  ((body.tools ?? []) as { function?: { name?: string } }[]).map((t) => t.function?.name ?? "");

describe.skipIf(!HAVE_CHROMIUM)("setting a box up from a phone (headless Chromium)", () => {
  let home: string;
  let configFile: string;
  let model: ScriptedServer;
  let qq: FakeQqPlatform;
  let box: ChildProcess;
  let output = "";
  let base: string;
  let browser: Browser;
  let phone: BrowserContext;
  let page: Page;
  /** Console errors and page errors (a CSP violation is one), with the page they came from. */
  const problems: string[] = [];

  const watch = (p: Page) => {
    p.on("console", (message) => {
      if (message.type() === "error") problems.push(`${p.url()}: ${message.text()}`);
    });
    p.on("pageerror", (error) => problems.push(`${p.url()}: ${error.message}`));
  };
  const sentTo = (peer: string) => qq.sent.filter((m) => m.peerId === peer);
  const textOf = (m: { body: Record<string, unknown> }) => String(m.body.content ?? "");

  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true });
    home = mkdtempSync(join(tmpdir(), "clawbox-setup-"));
    qq = new FakeQqPlatform().start();
    model = await startFakeOpenAI((request) =>
      openaiText(
        JSON.stringify(request.body.messages ?? "").includes("Scheduled reminder")
          ? REMINDER_REPLY
          : "ok",
      ),
    );
    configFile = join(home, "clawbox.json");
    writeFileSync(
      configFile,
      [
        "// a box fresh from the card: a model, nothing else",
        "{",
        "  models: {",
        "    primary: 'cloud', // the fake OpenAI server",
        "    providers: {",
        `      cloud: { kind: 'openai', baseUrl: '${model.url}/v1', model: 'fake', authProfiles: [{ id: 'k', apiKey: 'sk-test-not-secret-1' }] },`,
        "    },",
        "  },",
        "  memory: { enabled: false },",
        "}",
        "",
      ].join("\n"),
    );
    box = spawn(CLAWBOX_BIN, ["run", "--port", "0"], {
      env: { ...process.env, CLAWBOX_HOME: home, CLAWBOX_CONFIG: "" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    box.stdout?.on("data", (d) => {
      output += d;
    });
    box.stderr?.on("data", (d) => {
      output += d;
    });
    await waitUntil(() => /listening on http:\/\/\S+/.test(output), 30_000, "clawbox run");
    base = /listening on (http:\/\/\S+)/.exec(output)?.[1] ?? "";
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"],
    });
    phone = await browser.newContext({ viewport: { width: 390, height: 844 } });
    page = await phone.newPage();
    watch(page);
  }, 90_000);

  afterAll(async () => {
    await browser?.close();
    box?.kill("SIGTERM");
    await qq?.stop();
    await model?.close();
    if (home) rmSync(home, { recursive: true, force: true });
  });

  it("logs in with the console secret typed on the phone", async () => {
    await page.goto(base);
    await page.waitForSelector("input[name=secret]");
    await page.screenshot({ path: join(SHOTS, "login-390.png") });
    const secret = readFileSync(join(home, "console-secret"), "utf8").trim();
    await page.fill("input[name=secret]", secret);
    await Promise.all([page.waitForURL(`${base}/`), page.click("button[type=submit]")]);
    await page.waitForSelector("#chat-input");
  });

  it("Channels: sets QQ up; Test names a wrong secret, and the right one connects without a restart", async () => {
    await page.goto(`${base}/#channels`);
    const card = page.locator("#channel-qq");
    await card.locator("input[name=appId]").fill(qq.appId);
    await card.locator("input[name=clientSecret]").fill("not-the-secret");
    await card.locator("summary").click();
    await card.locator("input[name=apiBase]").fill(qq.url);
    await card.locator("input[name=tokenUrl]").fill(qq.tokenUrl);
    // A new channel starts at pairing (strangers get only a code), said in words; this
    // household chooses open, so a stranger's turn can be seen without the owner tools.
    expect(await card.locator("select[name=dmPolicy]").inputValue()).toBe("pairing");
    await expect(card.locator(".dm-policy-words").textContent()).resolves.toContain(
      "anyone else gets a pairing code",
    );
    await card.locator("select[name=dmPolicy]").selectOption("open");
    await expect(card.locator(".dm-policy-words").textContent()).resolves.toContain(
      "anyone who finds the bot gets answers",
    );
    await card.locator("button.test").click();
    const result = card.locator(".result");
    await expect.poll(() => result.textContent()).toContain("QQ refused the AppID or AppSecret");
    await expect(result.textContent()).resolves.toContain("invalid appid or secret");
    await card.locator("input[name=clientSecret]").fill(qq.clientSecret);
    await card.locator("button.test").click();
    await expect.poll(() => result.textContent()).toContain("QQ accepted the AppID and AppSecret");
    await card.locator("button.save").click();
    await expect.poll(() => result.textContent()).toContain("Saved and applied");
    // The box connects to the platform at once; the page shows it live.
    await waitUntil(() => qq.connected, 15_000, "the QQ gateway connection");
    await expect
      .poll(() => page.locator("#card-qq .status [data-state]").getAttribute("data-state"), {
        timeout: 15_000,
      })
      .toBe("connected");
    // The secret is written (comments kept) but never comes back to the browser.
    const text = readFileSync(configFile, "utf8");
    expect(text).toContain("// the fake OpenAI server");
    expect(JSON5.parse(text).channels.qq).toMatchObject({
      appId: qq.appId,
      clientSecret: qq.clientSecret,
      apiBase: qq.url,
      dmPolicy: "open",
    });
    const api = await page.evaluate(async () =>
      (
        await fetch("/console/api/channels", {
          headers: { "X-Clawbox-Session": localStorage.getItem("clawbox.console.session") ?? "" },
        })
      ).text(),
    );
    expect(api).not.toContain(qq.clientSecret);
    expect(await page.content()).not.toContain(qq.clientSecret);
    await expect(
      card.locator("input[name=clientSecret]").getAttribute("placeholder"),
    ).resolves.toContain("set");
    await page.screenshot({ path: join(SHOTS, "channels-qq-connected-390.png"), fullPage: true });
  });

  it("a QQ stranger has no owner tools, sends /pair and gets a code; Owners: Approve makes them an owner and tells them", async () => {
    qq.c2c(USER, "hi, what can you do?");
    await waitUntil(() => model.requests.length > 0, 20_000, "the stranger's turn");
    const strangerTools = toolsOf(model.requests.at(-1)?.body ?? {});
    expect(strangerTools).not.toContain("exec");
    expect(strangerTools).not.toContain("cron");
    await waitUntil(() => sentTo(USER).length === 1, 20_000, "the answer to the stranger");

    const pairId = qq.c2c(USER, "/pair");
    await waitUntil(() => sentTo(USER).length === 2, 20_000, "the pairing code");
    const codeMessage = sentTo(USER)[1];
    expect(codeMessage?.body.msg_id).toBe(pairId);
    const code = /code is ([A-Z2-9]{4}-[A-Z2-9]{4})/.exec(textOf(codeMessage ?? { body: {} }))?.[1];
    expect(code).toBeDefined();

    await page.goto(`${base}/#owners`);
    const row = page.locator(`#pending tr[data-code="${code}"]`);
    await row.waitFor();
    await expect(row.textContent()).resolves.toContain(`qq:${USER}`);
    await page.screenshot({ path: join(SHOTS, "owners-pending-390.png"), fullPage: true });
    await row.locator("button.approve").click();
    await expect
      .poll(() => page.locator("#owners-result").textContent())
      .toContain(`qq:${USER} is now an owner; a message to tell them is queued`);
    await page.locator(`#owners li[data-owner="qq:${USER}"]`).waitFor();
    // The id the console speaks as has no Remove; any other Remove asks first (dismissed here).
    expect(await page.locator('#owners li[data-owner="cli"] button.remove').count()).toBe(0);
    const asked = new Promise<string>((resolve) =>
      page.once("dialog", (dialog) => {
        resolve(dialog.message());
        void dialog.dismiss();
      }),
    );
    await page.locator(`#owners li[data-owner="qq:${USER}"] button.remove`).click();
    expect(await asked).toContain(`Remove qq:${USER}?`);
    expect(JSON5.parse(readFileSync(configFile, "utf8")).agent.owners).toEqual([
      "cli",
      `qq:${USER}`,
    ]);
    // Told on QQ, as the second reply to their /pair (no proactive message used up).
    await waitUntil(() => sentTo(USER).length === 3, 20_000, "the approval message");
    expect(sentTo(USER)[2]?.body).toMatchObject({ msg_id: pairId, msg_seq: 2 });
    expect(textOf(sentTo(USER)[2] ?? { body: {} })).toContain("You are now an owner");

    // Their next turn is an owner's: the owner-only tools are offered.
    const before = model.requests.length;
    qq.c2c(USER, "are you there?");
    await waitUntil(() => model.requests.length > before, 20_000, "the owner's turn");
    const ownerTools = toolsOf(model.requests.at(-1)?.body ?? {});
    expect(ownerTools).toEqual(expect.arrayContaining(["exec", "cron", "write"]));
    await waitUntil(() => sentTo(USER).length === 4, 20_000, "the answer to the owner");
    // In a session of their own that belongs to the owner; what they said as a stranger
    // stays in the stranger's session it was said in.
    const db = new Database(join(home, "clawbox.db"), { readonly: true });
    try {
      const rows = db
        .query("SELECT principal FROM sessions WHERE session_key = ? ORDER BY created_at")
        .all(`agent:main:qq:direct:${USER}`) as { principal: string }[];
      expect(rows.map((r) => r.principal)).toEqual([`qq:${USER}`, "owner"]);
    } finally {
      db.close();
    }
  });

  it("Workspace: a mistake in TOOLS.md is shown on its line; the fixed camera is offered at the next turn", async () => {
    await page.goto(`${base}/#workspace`);
    await page.selectOption("#ws-file", "TOOLS.md");
    const editor = page.locator("#ws-text");
    await expect.poll(() => editor.inputValue()).toContain("TOOLS");
    const original = await editor.inputValue();
    const lines = original.trimEnd().split("\n").length;
    const camera = (url: string) =>
      `${original.trimEnd()}\n\n## Cameras\n\n- name: porch\n  url: ${url}\n  description: Front porch\n`;
    await editor.fill(camera("ftp://192.168.1.60/snap.jpg"));
    const problem = page.locator("#ws-problems li").first();
    await problem.waitFor();
    await expect(problem.getAttribute("data-line")).resolves.toBe(String(lines + 4));
    await expect(problem.textContent()).resolves.toContain("url must be an http(s)://");
    // The line is said once (the button), not again by the parser's own prefix.
    await expect(problem.textContent()).resolves.toMatch(
      new RegExp(`^line ${lines + 4}: [^0-9]*$`),
    );
    await page.screenshot({ path: join(SHOTS, "workspace-problem-390.png"), fullPage: true });
    await editor.fill(camera("http://192.168.1.60/snap.jpg"));
    await expect.poll(() => page.locator("#ws-problems li").count()).toBe(0);
    await page.click("#ws-save");
    await expect.poll(() => page.locator("#ws-result").textContent()).toContain("Saved");
    await expect(page.locator("#ws-devices").textContent()).resolves.toContain("porch (camera)");
    expect(readFileSync(join(home, "workspace", "TOOLS.md"), "utf8")).toContain("- name: porch");
    const before = model.requests.length;
    qq.c2c(USER, "how is the porch?");
    await waitUntil(() => model.requests.length > before, 20_000, "the turn after the save");
    const tools = (model.requests.at(-1)?.body.tools ?? []) as {
      function: { name: string; description: string };
    }[];
    const snapshot = tools.find((t) => t.function.name === "camera_snapshot");
    expect(snapshot?.function.description).toContain("porch");
    await waitUntil(() => sentTo(USER).length === 5, 20_000, "the answer about the porch");
  });

  it("Reminders: one in a minute for the QQ owner is delivered to them once", async () => {
    await page.goto(`${base}/#reminders`);
    await page.fill("#rem-text", "take the bins out");
    await page.selectOption("#rem-kind", "in");
    await page.fill("#rem-when", "1 minute");
    await page.selectOption("#rem-target", `qq:${USER}`);
    await page.click("#reminder-form button[type=submit]");
    await expect.poll(() => page.locator("#rem-result").textContent()).toContain("Added");
    // One local time a person reads ("Added: Dec 1, 2026, 10:54 PM (in 1 min)"), no ISO stamp.
    const added = (await page.locator("#rem-result").textContent()) ?? "";
    expect(added).toMatch(/^Added: .+ \(in 1 min\)\.$/);
    expect(added).not.toMatch(/\d{4}-\d{2}-\d{2}T/);
    await expect(page.locator("#reminders tr").count()).resolves.toBe(1);
    await page.screenshot({ path: join(SHOTS, "reminders-390.png"), fullPage: true });
    const proactive = () =>
      sentTo(USER).filter((m) => m.body.msg_id === undefined && textOf(m) === REMINDER_REPLY);
    await waitUntil(() => proactive().length > 0, 120_000, "the reminder on QQ");
    await Bun.sleep(5_000);
    expect(proactive()).toHaveLength(1);
    await page.goto(`${base}/#reminders`);
    // "sent" once QQ accepted it (issue 38), where it said "ok" before.
    await expect
      .poll(
        async () => {
          await page.goto(`${base}/#reminders`);
          return page.locator("#runs .badge").first().textContent({ timeout: 5_000 });
        },
        { timeout: 30_000, interval: 1_000 },
      )
      .toBe("sent");
  }, 150_000);

  it("every page at 390 and 1280 px: no wider than the window, nothing shown collapsed, the bar filled, no console or CSP error", async () => {
    const desk = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const wide = await desk.newPage();
    watch(wide);
    // The same login on the desktop, by a one-time link this time.
    await wide.goto(base);
    await wide.locator("input[name=secret]").waitFor();
    const login = await wide.evaluate<{ page: number; window: number }>(
      "({ page: document.documentElement.scrollWidth, window: window.innerWidth })",
    );
    expect(login.page).toBeLessThanOrEqual(login.window);
    await wide.screenshot({ path: join(SHOTS, "login-1280.png") });
    const link = await consoleUrl(home, base);
    await wide.goto(link);
    await wide.waitForSelector("#chat-input");
    for (const [p, width] of [
      [page, 390],
      [wide, 1280],
    ] as const) {
      for (const name of PAGES) {
        await p.goto(`${base}/#${name}`);
        await p.locator(`nav a.current[data-page="${name}"]`).waitFor();
        await p.waitForSelector("main h1");
        await p.waitForLoadState("networkidle");
        if (name === "chat" && width === 390) {
          // A reply in columns is monospace and scrolls inside its bubble, not the page.
          const replies = p.locator(".entry.assistant.done");
          const before = await replies.count();
          await p.locator("#chat-input").fill("/context list");
          await p.locator("#chat-input").press("Enter");
          // This command's finished reply first, so a failure names what came back instead.
          const done = replies.nth(before);
          await done.waitFor();
          const table = done.locator(".text.columns");
          expect(
            await table.count(),
            `the reply to /context list: ${await done.textContent()}`,
          ).toBe(1);
          type Style = { whiteSpace: string; fontFamily: string };
          const look = await table.evaluate((el) => {
            const win = globalThis as unknown as { getComputedStyle(e: unknown): Style };
            const style = win.getComputedStyle(el);
            return { whiteSpace: style.whiteSpace, fontFamily: style.fontFamily };
          });
          expect(look.whiteSpace).toBe("pre");
          expect(look.fontFamily).toMatch(/mono/i);
        }
        if (width === 390) {
          // No word split across lines in a button or a table cell (a path longer than
          // 24 characters may break; a hyphen is a break anyway), and every button's text on one line.
          const broken = await p.evaluate<string[]>(`(() => {
            const out = [];
            const lines = (range) => new Set([...range.getClientRects()].filter((r) => r.width > 0).map((r) => Math.round(r.top))).size;
            for (const el of document.querySelectorAll("main button, main td, main th")) {
              if (el.getClientRects().length === 0) continue;
              if (el.tagName === "BUTTON") {
                const all = document.createRange();
                all.selectNodeContents(el);
                if (lines(all) > 1) out.push("button on " + lines(all) + " lines: " + el.textContent);
              }
              const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
              for (let n = walker.nextNode(); n; n = walker.nextNode()) {
                for (const m of n.data.matchAll(/[^\\s-]+/g)) {
                  if (m[0].length > 24) continue;
                  const r = document.createRange();
                  r.setStart(n, m.index);
                  r.setEnd(n, m.index + m[0].length);
                  if (lines(r) > 1) out.push(el.tagName + " splits " + m[0]);
                }
              }
            }
            return out;
          })()`);
          expect(broken, `${name} at ${width} px`).toEqual([]);
        }
        // Nothing wider than the window, and no element whose content is wider than its box.
        expect(await layoutProblems(p), `${name} at ${width} px`).toEqual([]);
        // Whatever the page shows is drawn: no visible heading, control, table or bar
        // collapsed to nothing (the empty context bar was such a box, its parts 0 px wide).
        const collapsed = await p.evaluate<string[]>(`[...document.querySelectorAll(
            "header, nav a, main h1, main h2, main button, main input, main select, main textarea, main table, main .progress, main .seg, main label"
          )]
          .filter((el) => el.checkVisibility())
          .filter((el) => { const r = el.getBoundingClientRect(); return r.width <= 0 || r.height <= 0; })
          .map((el) => el.outerHTML.slice(0, 80))`);
        expect(collapsed, `${name} at ${width} px`).toEqual([]);
        // No placeholder leaking into what a person reads (the rendered text, hence innerText).
        // biome-ignore lint/performance/useDomNodeTextContent: the text as shown is the point
        const shown = (await p.locator("main").innerText()).replace(/nullable/g, "");
        expect(shown, name).not.toMatch(/\bnull\b|\bundefined\b|\bNaN\b|\[object Object\]/);
        if (name === "context") {
          await p.waitForSelector("#budget-bar .seg", { state: "attached" });
          const bar = await p.locator("#budget-bar").evaluate((el) => ({
            inner: el.clientWidth,
            parts: [...el.querySelectorAll(".seg")].map((s) => s.getBoundingClientRect().width),
          }));
          expect(bar.parts.length).toBeGreaterThanOrEqual(4);
          for (const w of bar.parts) expect(w).toBeGreaterThan(0);
          const sum = bar.parts.reduce((a, b) => a + b, 0);
          expect(Math.abs(sum - bar.inner)).toBeLessThanOrEqual(1);
        }
        await p.screenshot({ path: join(SHOTS, `${name}-${width}.png`), fullPage: true });
      }
    }
    await desk.close();
    expect(problems, problems.join("\n")).toEqual([]);
  }, 120_000);

  it("Logs: the service's recent lines, secrets hidden", async () => {
    await page.goto(`${base}/#logs`);
    await page.locator("#log-lines .line").first().waitFor();
    const text = (await page.locator("#log-lines").textContent()) ?? "";
    expect(text).toContain("channel settings changed from the console");
    expect(text).toContain("pairing approved in the console");
    expect(text).not.toContain(qq.clientSecret);
    await page.selectOption("#log-level", "warn");
    await expect
      .poll(async () => (await page.locator("#log-lines").textContent()) ?? "")
      .not.toContain("pairing approved");
    expect(problems).toEqual([]);
  });
});
