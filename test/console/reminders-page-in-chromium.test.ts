/**
 * Issue 38 items 5 and 6 as a person sees them, in headless Chromium at 390 and 1280 px
 * against a real `clawbox run` with the fake QQ open platform and the fake OpenAI server,
 * with real data: an owner with a 32-hex QQ openid, Chinese reminder text, a model that
 * answers the reminder with an unrelated sentence. The QQ owner gets the reminder's own
 * text; the Active list shows each reminder's next run as one time naming its zone (no
 * UTC ISO with milliseconds); "Last runs" names the reminder's text and says "sent",
 * in the success colour, once the platform accepted it. Nothing is wider than the
 * window or its box, and no console error. Screenshots in test/.artifacts/reminders/.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Browser, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openaiText, type ScriptedServer, startFakeOpenAI } from "../fakes/openai-server.ts";
import { FakeQqPlatform, waitUntil } from "../fakes/qq-platform.ts";
import { CLAWBOX_BIN } from "../support/spawn-cli.ts";

const CHROMIUM = "/usr/bin/chromium";
const HAVE_CHROMIUM = existsSync(CHROMIUM);
if (!HAVE_CHROMIUM) console.warn(`reminders browser test skipped: ${CHROMIUM} is not installed`);

const SHOTS = join(import.meta.dirname, "..", ".artifacts", "reminders");
/** A real QQ openid: 32 hex characters. */
const OPENID = "7f3a9c27d4e1b8a65c2f7e90d1b3a4c8";
const ONE_OFF = "检查门廊摄像头，看看快递是不是放在门口了，如果下雨就把箱子搬进来";
const DAILY = "给花浇水（阳台上的三盆绿萝，每盆半杯水）";
/** A reminder for the console's own conversation. */
const CONSOLE_ONE = "把洗衣机里的衣服晾出来";
/** The small model's answer when the reminder fires: nothing to do with it. */
const OFF_TOPIC = "今天天气不错，适合散步。";

describe.skipIf(!HAVE_CHROMIUM)("the Reminders page (headless Chromium)", () => {
  let home: string;
  let model: ScriptedServer;
  let qq: FakeQqPlatform;
  let box: ChildProcess;
  let output = "";
  let base: string;
  let browser: Browser;
  const problems: string[] = [];

  const open = async (width: number): Promise<Page> => {
    const context = await browser.newContext({ viewport: { width, height: 844 } });
    const page = await context.newPage();
    page.on("console", (m) => {
      if (m.type() === "error") problems.push(`${width}: ${m.text()}`);
    });
    page.on("pageerror", (e) => problems.push(`${width}: ${e.message}`));
    await page.goto(base);
    await page.fill(
      "input[name=secret]",
      readFileSync(join(home, "console-secret"), "utf8").trim(),
    );
    await Promise.all([page.waitForURL(`${base}/`), page.click("button[type=submit]")]);
    await page.waitForSelector("#chat-input");
    await page.goto(`${base}/#reminders`);
    await page.waitForSelector("#reminder-form");
    return page;
  };

  /** Nothing wider than the window, and no table, cell or line wider than its own box. */
  const fits = async (page: Page, width: number) => {
    const widths = await page.evaluate<{ page: number; window: number }>(
      "({ page: document.documentElement.scrollWidth, window: window.innerWidth })",
    );
    expect(widths.page, `page at ${width} px`).toBeLessThanOrEqual(widths.window);
    const over = await page.evaluate<
      string[]
    >(`[...document.querySelectorAll("main table, main td, main .muted, main strong")]
      .filter((el) => el.checkVisibility() && el.scrollWidth > el.clientWidth + 1)
      .map((el) => el.tagName + " " + el.scrollWidth + ">" + el.clientWidth + ": " + el.textContent.slice(0, 60))`);
    expect(over, `at ${width} px`).toEqual([]);
  };

  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true });
    home = mkdtempSync(join(tmpdir(), "clawbox-reminders-"));
    qq = new FakeQqPlatform().start();
    model = await startFakeOpenAI((request) =>
      openaiText(
        JSON.stringify(request.body.messages ?? "").includes("Scheduled reminder")
          ? OFF_TOPIC
          : "ok",
      ),
    );
    writeFileSync(
      join(home, "clawbox.json"),
      JSON.stringify({
        agent: { owners: [`qq:${OPENID}`], timezone: "Asia/Shanghai" },
        models: {
          primary: "cloud",
          providers: {
            cloud: {
              kind: "openai",
              baseUrl: `${model.url}/v1`,
              model: "fake",
              authProfiles: [{ id: "k", apiKey: "sk-test-not-secret-1" }],
            },
          },
        },
        channels: {
          qq: {
            appId: qq.appId,
            clientSecret: qq.clientSecret,
            apiBase: qq.url,
            tokenUrl: qq.tokenUrl,
          },
        },
        memory: { enabled: false },
      }),
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
    await waitUntil(() => qq.connected, 20_000, "the QQ gateway connection");
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"],
    });
  }, 90_000);

  afterAll(async () => {
    await browser?.close();
    box?.kill("SIGTERM");
    await qq?.stop();
    await model?.close();
    if (home) rmSync(home, { recursive: true, force: true });
  });

  it("at 390 px: a reminder for the QQ owner shows one zoned time, reaches QQ with its own text, and its run says sent in green", async () => {
    const page = await open(390);
    // A daily one (stays in Active) and a one-off in a few seconds, both for the QQ owner.
    for (const [text, kind, when] of [
      [DAILY, "daily", "07:00"],
      [ONE_OFF, "in", "4 seconds"],
    ] as const) {
      await page.fill("#rem-text", text);
      await page.selectOption("#rem-kind", kind);
      await page.fill("#rem-when", when);
      await page.selectOption("#rem-target", `qq:${OPENID}`);
      await page.click("#reminder-form button[type=submit]");
      await page.locator("#reminders tr", { hasText: text }).waitFor();
      await expect.poll(() => page.locator("#rem-result").textContent()).toContain("Added");
    }
    const added = (await page.locator("#rem-result").textContent()) ?? "";
    expect(added).toMatch(/^Added: \d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} Asia\/Shanghai \(.+\)\.$/);
    const daily = page.locator("#reminders tr", { hasText: DAILY });
    const next = (await daily.locator("td.next").textContent()) ?? "";
    // One time, naming its zone: no UTC ISO stamp, no milliseconds, no second zoneless time.
    expect(next).toMatch(/^\d{4}-\d{2}-\d{2} 07:00:00 Asia\/Shanghai \(in .+\)$/);
    // biome-ignore lint/performance/useDomNodeTextContent: the text as shown is the point
    const shown = await page.locator("#reminders").innerText();
    expect(shown).not.toMatch(/\d{4}-\d{2}-\d{2}T\d{2}:\d{2}|\.\d{3}Z/);
    expect(shown).toContain(OPENID);
    await fits(page, 390);
    await page.screenshot({ path: join(SHOTS, "reminders-active-390.png"), fullPage: true });

    // The QQ owner gets the reminder's own text, the model's words after it.
    const reminders = () =>
      qq.sent.filter((m) => m.peerId === OPENID && String(m.body.content).includes(ONE_OFF));
    await waitUntil(() => reminders().length > 0, 30_000, "the reminder on QQ");
    expect(reminders().map((m) => m.body.content)).toEqual([`⏰ ${ONE_OFF}\n\n${OFF_TOPIC}`]);

    // Last runs names the reminder's text and says "sent" in the success colour.
    const run = page.locator("#runs tr", { hasText: ONE_OFF });
    await expect
      .poll(
        async () => {
          await page.goto(`${base}/#reminders`);
          await page.waitForSelector("#reminder-form");
          return (await run.count()) > 0 ? run.locator(".badge").textContent() : "";
        },
        { timeout: 20_000 },
      )
      .toBe("sent");
    const badge = run.locator(".badge");
    expect(await badge.getAttribute("class")).toContain("ok");
    const colours = await page.evaluate<{ badge: string; ok: string }>(`(() => {
      const probe = document.createElement("span");
      probe.style.color = "var(--ok)";
      document.body.append(probe);
      const ok = getComputedStyle(probe).color;
      probe.remove();
      return { badge: getComputedStyle(document.querySelector("#runs .badge")).color, ok };
    })()`);
    expect(colours.badge).toBe(colours.ok);
    // biome-ignore lint/performance/useDomNodeTextContent: the text as shown is the point
    const row = await run.innerText();
    expect(row).toContain(ONE_OFF);
    expect(row).toMatch(/\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} Asia\/Shanghai/);
    expect(row).toContain(`sent to qq:direct:${OPENID}`);
    await fits(page, 390);
    await page.screenshot({ path: join(SHOTS, "reminders-390.png"), fullPage: true });
    await page.context().close();
  }, 120_000);

  it("at 390 px: a reminder for this console arrives in the open chat as its own text, the model's words after it", async () => {
    const page = await open(390);
    await page.fill("#rem-text", CONSOLE_ONE);
    await page.selectOption("#rem-kind", "in");
    await page.fill("#rem-when", "8 seconds");
    await page.selectOption("#rem-target", "console");
    await page.click("#reminder-form button[type=submit]");
    await page.locator("#reminders tr", { hasText: CONSOLE_ONE }).waitFor();
    // The chat stays open; the reminder shows up there without a reload.
    await page.goto(`${base}/#chat`);
    await page.waitForSelector("#chat-input");
    const reminder = page.locator(".entry", { hasText: CONSOLE_ONE });
    // Not there when the chat was drawn (it fires seconds later) ...
    expect(await reminder.count()).toBe(0);
    // ... and there without a reload once it fired.
    await reminder.waitFor({ timeout: 40_000 });
    await expect(reminder.locator(".role").textContent()).resolves.toBe("reminder");
    // biome-ignore lint/performance/useDomNodeTextContent: the text as shown is the point
    const shown = await reminder.innerText();
    expect(shown).not.toContain("Scheduled reminder");
    await page
      .locator(".entry.assistant", { hasText: OFF_TOPIC })
      .last()
      .waitFor({ timeout: 20_000 });
    await page.screenshot({ path: join(SHOTS, "chat-reminder-390.png"), fullPage: true });
    await page.goto(`${base}/#reminders`);
    const run = page.locator("#runs tr", { hasText: CONSOLE_ONE });
    await run.waitFor();
    await expect(run.locator(".badge").textContent()).resolves.toBe("delivered");
    expect(await run.locator(".badge").getAttribute("class")).toContain("ok");
    await page.context().close();
  }, 90_000);

  it("at 1280 px: the same page, the same run, nothing wider than its box, no console error", async () => {
    const page = await open(1280);
    const run = page.locator("#runs tr", { hasText: ONE_OFF });
    await run.waitFor();
    await expect(run.locator(".badge").textContent()).resolves.toBe("sent");
    // biome-ignore lint/performance/useDomNodeTextContent: the text as shown is the point
    const shown = await page.locator("main").innerText();
    expect(shown).toContain(DAILY);
    expect(shown).not.toMatch(/\d{4}-\d{2}-\d{2}T\d{2}:\d{2}|\.\d{3}Z|\bnull\b|\bundefined\b/);
    await fits(page, 1280);
    await page.screenshot({ path: join(SHOTS, "reminders-1280.png"), fullPage: true });
    await page.context().close();
    expect(problems, problems.join("\n")).toEqual([]);
  }, 60_000);
});
