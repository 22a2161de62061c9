/**
 * The console on a phone with what a real household produces (issue 38): QQ openids of
 * 32 hex characters, a WeCom userid of 64, Chinese names and messages, a doctor check
 * with a long fix. A real `clawbox run` with the fake QQ open platform, the fake WeCom
 * long-connection server and the fake OpenAI server as the models; headless Debian
 * Chromium at 390 and 1280 px. Owners: every pending request's code, sender, channel,
 * expiry and both buttons inside the window. Models: the fallback select offers the
 * providers, and Save with nothing changed leaves the config file byte for byte. Channels:
 * the direct-chat policy in words; a channel set up from the console starts at `pairing`
 * while the existing one keeps its unset policy. Sessions: a stranger's and an owner's
 * session with one key are told apart. Then every page at both widths: no document
 * scrolling sideways, no element whose content is wider than its box, no console error.
 * Screenshots in test/.artifacts/console-real-data/ (or the folder SHOTS_DIR names).
 */
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import JSON5 from "json5";
import { type Browser, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PAGES } from "../../src/console/page-shell.ts";
import { openaiText, type ScriptedServer, startFakeOpenAI } from "../fakes/openai-server.ts";
import { FakeQqPlatform, waitUntil } from "../fakes/qq-platform.ts";
import { type FakeBotServer, startFakeBotServer } from "../fakes/wecom-bot-server.ts";
import { layoutProblems } from "../support/layout-problems.ts";
import { type RunningService, startService } from "../support/run-service.ts";

const CHROMIUM = "/usr/bin/chromium";
const HAVE_CHROMIUM = existsSync(CHROMIUM);
if (!HAVE_CHROMIUM) console.warn(`real-data console test skipped: ${CHROMIUM} is not installed`);

const SHOTS =
  process.env.SHOTS_DIR ?? join(import.meta.dirname, "..", ".artifacts", "console-real-data");
const TOKEN = "real-data-console-token-0123456789";
/** Real-length ids: QQ openids are 32 hex characters, a WeCom userid up to 64. */
const QQ_MOTHER = "E5A1C3F0B2D4968A7C1E3F5A9B0D2C4E";
const QQ_GUEST = "0F9E8D7C6B5A49382716A5B4C3D2E1F0";
const WECOM_USER = "zhangxiaoming_family_account_2026_living_room_tablet_0123456789ab";
const BOT = { botId: "aibot-home-0123456789abcdef", secret: "bot-secret-123456" };
const WIDTHS = [390, 1280] as const;
/** Two cores shared with other test runs: a page may take seconds to answer. */
const SLOW = { timeout: 15_000 };
/** A message the fake model refuses (HTTP 401), so its turn fails. */
const REFUSED = "请帮我查一下门廊摄像头的录像（这条会失败）";

describe.skipIf(!HAVE_CHROMIUM)("the console with real-length data (Chromium)", () => {
  let home: string;
  let configFile: string;
  let model: ScriptedServer;
  let qq: FakeQqPlatform;
  let bot: FakeBotServer;
  let box: RunningService;
  let browser: Browser;
  const pages = new Map<number, Page>();
  /** Console errors and page errors (a CSP violation is one), with the page they came from. */
  const problems: string[] = [];

  const sentTo = (peer: string) => qq.sent.filter((m) => m.peerId === peer);
  const codeIn = (text: string) => /code is ([A-Z2-9]{4}-[A-Z2-9]{4})/.exec(text)?.[1] ?? "";
  const pageAt = (width: number): Page => {
    const p = pages.get(width);
    if (!p) throw new Error(`no page at ${width} px`);
    return p;
  };
  /** Opens a console page afresh (a full load: a hash change alone would leave the old
   * page's heading and load state in place until the new page draws). */
  const open = async (p: Page, name: string) => {
    await p.goto("about:blank");
    await p.goto(`${box.url}/#${name}`);
    await p.locator(`nav a.current[data-page="${name.split("/")[0]}"]`).waitFor();
    await p.waitForSelector("main h1");
    await p.waitForLoadState("networkidle");
  };

  /** The whole page, and a tall page also in window-high parts (to look at them closely). */
  const shoot = async (p: Page, name: string) => {
    await p.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });
    const height = await p.evaluate<number>("document.documentElement.scrollHeight");
    const { width, height: step } = p.viewportSize() ?? { width: 390, height: 844 };
    if (height <= 1500) return;
    for (let y = 0, part = 1; y < height; y += step, part++)
      await p.screenshot({
        path: join(SHOTS, `${name}-part${part}.png`),
        fullPage: true,
        clip: { x: 0, y, width, height: Math.min(step, height - y) },
      });
  };

  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true });
    home = mkdtempSync(join(tmpdir(), "clawbox-real-data-"));
    qq = new FakeQqPlatform().start();
    bot = startFakeBotServer(BOT);
    // A refused key (both providers) for one message: the turn fails (item 8).
    model = await startFakeOpenAI((request) =>
      JSON.stringify(request.body.messages ?? "").includes(REFUSED)
        ? {
            kind: "status",
            status: 401,
            body: { error: { message: "Incorrect API key provided: sk-test-no**********t-1" } },
          }
        : openaiText("好的，明天早上七点我会提醒您把垃圾拿出去。还有别的需要帮忙的吗？"),
    );
    configFile = join(home, "clawbox.json");
    writeFileSync(
      configFile,
      [
        "// a household box: a cloud model with a fallback, QQ and a WeCom bot",
        "{",
        `  server: { token: '${TOKEN}' },`,
        "  models: {",
        "    primary: 'cloud',",
        "    fallbacks: ['backup'], // the second account",
        "    providers: {",
        `      cloud: { kind: 'openai', baseUrl: '${model.url}/v1', model: 'qwen-plus-2025-09-11', authProfiles: [{ id: 'k', apiKey: 'sk-test-not-secret-1' }] },`,
        `      backup: { kind: 'openai', baseUrl: '${model.url}/v1', model: 'deepseek-chat', authProfiles: [{ id: 'k', apiKey: 'sk-test-not-secret-2' }] },`,
        "      local: { kind: 'local', path: '/var/lib/clawbox/models/qwen2.5-1.5b-instruct-q4_k_m-from-the-family-nas-backup-folder.gguf' },",
        "    },",
        "  },",
        "  channels: {",
        `    qq: { appId: '${qq.appId}', clientSecret: '${qq.clientSecret}', apiBase: '${qq.url}', tokenUrl: '${qq.tokenUrl}' },`,
        `    wecom: { bot: { botId: '${BOT.botId}', secret: '${BOT.secret}', wsUrl: '${bot.url}' } },`,
        "  },",
        "  memory: { enabled: true, embedding: { model: 'none' } }, // keyword search only",
        "}",
        "",
      ].join("\n"),
    );
    box = await startService(["--port", "0"], { CLAWBOX_HOME: home, CLAWBOX_CONFIG: "" });
    await waitUntil(() => qq.connected, 20_000, "the QQ gateway connection");
    await waitUntil(() => bot.openConnections() > 0, 20_000, "the WeCom long connection");
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"],
    });
    for (const width of WIDTHS) {
      const context = await browser.newContext({ viewport: { width, height: 844 } });
      const p = await context.newPage();
      p.on("console", (message) => {
        if (message.type() === "error") problems.push(`${p.url()}: ${message.text()}`);
      });
      p.on("pageerror", (error) => problems.push(`${p.url()}: ${error.message}`));
      await p.goto(`${box.url}/console/login`);
      await p.locator('input[name="secret"]').fill(TOKEN);
      await p.locator('button[type="submit"]').click();
      await p.waitForURL(`${box.url}/`);
      pages.set(width, p);
    }
  }, 240_000);

  afterAll(async () => {
    await browser?.close();
    box?.child.kill("SIGTERM");
    await box?.exited;
    await qq?.stop();
    await bot?.close();
    await model?.close();
    if (home) rmSync(home, { recursive: true, force: true });
  });

  it("three people ask to pair (two QQ openids, a 64-character WeCom userid); their codes come back", async () => {
    // The mother chats first (a stranger's session), then asks to pair.
    qq.c2c(QQ_MOTHER, "你好，请问明天早上七点提醒我把垃圾拿出去可以吗？");
    await waitUntil(() => sentTo(QQ_MOTHER).length === 1, 20_000, "the answer to the stranger");
    qq.c2c(QQ_MOTHER, "/pair");
    await waitUntil(() => sentTo(QQ_MOTHER).length === 2, 20_000, "the mother's code");
    qq.c2c(QQ_GUEST, "/pair");
    await waitUntil(() => sentTo(QQ_GUEST).length === 1, 20_000, "the guest's code");
    bot.pushMessage({
      msgid: "m-pair-wecom",
      aibotid: BOT.botId,
      chattype: "single",
      from: { userid: WECOM_USER },
      create_time: Math.floor(Date.now() / 1000),
      msgtype: "text",
      text: { content: "/pair" },
    });
    await bot.waitFor((frames) => frames.some((f) => f.cmd === "aibot_send_msg"), 20_000);
    expect(codeIn(String(sentTo(QQ_MOTHER)[1]?.body.content))).not.toBe("");
  });

  it("Owners: every request's code, sender, channel, expiry and both buttons are inside the window", async () => {
    for (const width of WIDTHS) {
      const p = pageAt(width);
      await open(p, "owners");
      const rows = p.locator("#pending tr[data-code]");
      await expect.poll(() => rows.count(), SLOW).toBe(3);
      type Box = { left: number; right: number; width: number; height: number };
      type Seen = {
        text: string;
        codeHeight: number;
        line: number;
        approve: Box;
        deny: Box;
        window: number;
      };
      const seen = await p.evaluate<
        Seen[]
      >(`[...document.querySelectorAll("#pending tr[data-code]")].map((tr) => {
        const code = tr.querySelector(".code");
        const box = (el) => { const r = el.getBoundingClientRect(); return { left: r.left, right: r.right, width: r.width, height: r.height }; };
        return {
          text: tr.textContent || "",
          codeHeight: box(code).height,
          line: Number.parseFloat(getComputedStyle(code).lineHeight) || 22,
          approve: box(tr.querySelector("button.approve")),
          deny: box(tr.querySelector("button.deny")),
          window: window.innerWidth,
        };
      })`);
      for (const row of seen) {
        // The code on one line, not one letter per line.
        expect(row.codeHeight, `${width} px: ${row.text}`).toBeLessThan(row.line * 1.5);
        for (const button of [row.approve, row.deny]) {
          expect(button.width, `${width} px`).toBeGreaterThan(0);
          expect(button.left, `${width} px: ${row.text}`).toBeGreaterThanOrEqual(0);
          expect(button.right, `${width} px: ${row.text}`).toBeLessThanOrEqual(row.window);
        }
        expect(row.text).toMatch(/expires in \d+ min/);
      }
      const all = seen.map((r) => r.text).join("\n");
      expect(all).toContain(`qq:${QQ_MOTHER}`);
      expect(all).toContain(`qq:${QQ_GUEST}`);
      expect(all).toContain(`wecom:${WECOM_USER}`);
      expect(all).toContain("on qq");
      expect(all).toContain("on wecom-bot");
      expect(await layoutProblems(p), `owners at ${width} px`).toEqual([]);
      await shoot(p, `owners-pending-${width}`);
    }
    // Approve the mother from the phone: the button is where a thumb reaches it.
    const phone = pageAt(390);
    const code = codeIn(String(sentTo(QQ_MOTHER)[1]?.body.content));
    await phone.locator(`#pending tr[data-code="${code}"] button.approve`).click();
    await expect
      .poll(() => phone.locator("#owners-result").textContent(), SLOW)
      .toContain(`qq:${QQ_MOTHER} is now an owner`);
    await waitUntil(
      () => sentTo(QQ_MOTHER).some((m) => String(m.body.content).includes("You are now an owner")),
      20_000,
      "the approval message",
    );
  });

  it("Sessions: the stranger-era session and the owner's, with one key, say whose each is", async () => {
    const before = sentTo(QQ_MOTHER).length;
    qq.c2c(QQ_MOTHER, "我现在是主人了吗？");
    await waitUntil(() => sentTo(QQ_MOTHER).length > before, 20_000, "the owner's answer");
    for (const width of WIDTHS) {
      const p = pageAt(width);
      await open(p, "sessions");
      const key = `agent:main:qq:direct:${QQ_MOTHER}`;
      const rows = p.locator("#sessions tbody tr").filter({ hasText: key });
      await expect.poll(() => rows.count(), SLOW).toBe(2);
      const belongs = await rows.locator("td.belongs").allTextContents();
      expect(belongs.sort()).toEqual([`qq:${QQ_MOTHER}`, "the owner"].sort());
      // On the phone every cell says what it is (label: value), the counts and dates included.
      const labels = await p.evaluate<string[]>(
        `[...document.querySelectorAll("#sessions tbody tr:first-child td")].map((td) => getComputedStyle(td, "::before").content)`,
      );
      if (width === 390)
        expect(labels).toEqual([
          '"session: "',
          '"belongs to: "',
          '"messages: "',
          '"compactions: "',
          '"started: "',
          '"updated: "',
        ]);
      else {
        expect(await p.locator("#sessions thead").isVisible()).toBe(true);
        expect(labels.every((l) => l === "none")).toBe(true);
      }
      expect(await layoutProblems(p), `sessions at ${width} px`).toEqual([]);
    }
  });

  it("Chat: a failed turn's error reads the same live and in the history, in plain words", async () => {
    const plain =
      "The AI service did not accept its access key. The owner needs to check the API key settings.";
    for (const [turns, width] of WIDTHS.entries()) {
      const p = pageAt(width);
      await open(p, "chat");
      await p.locator("#chat-input").fill(REFUSED);
      await p.locator("#chat-input").press("Enter");
      const live = p.locator(".entry.assistant.done .error");
      await live.waitFor({ timeout: 20_000 });
      expect(await live.textContent(), `live at ${width} px`).toBe(plain);
      // Opened again: the history says the same words (one failed turn per width so far).
      await open(p, "chat");
      const kept = p.locator(".entry.assistant .error");
      await expect.poll(() => kept.count(), SLOW).toBe(turns + 1);
      expect(await kept.allTextContents(), `history at ${width} px`).toEqual(
        Array(turns + 1).fill(plain),
      );
      expect(await layoutProblems(p), `chat at ${width} px`).toEqual([]);
    }
  });

  it("Models: the fallback select offers the providers; Save with no edits leaves the file byte for byte", async () => {
    const before = readFileSync(configFile);
    // Not rewritten at all (an atomic write of the same bytes is a new file).
    const { ino, mtimeMs } = statSync(configFile);
    const untouched = () => {
      const now = statSync(configFile);
      return readFileSync(configFile).equals(before) && now.ino === ino && now.mtimeMs === mtimeMs;
    };
    for (const width of WIDTHS) {
      const p = pageAt(width);
      await open(p, "models");
      const options = await p.evaluate<string[]>(
        `[...document.querySelectorAll("#fallback option")].map((o) => o.value)`,
      );
      expect(options).toEqual(["", "backup", "local"]);
      expect(await p.locator("#fallback").inputValue()).toBe("backup");
      expect(await p.locator("#fallback").textContent()).not.toContain("[object");
      await p.locator("form.row button[type=submit]").click();
      await expect
        .poll(() => p.locator("#chain-result").textContent(), SLOW)
        .toBe("Nothing changed.");
      expect(untouched(), "the config file after Save").toBe(true);
    }
    // Even a request that repeats the current chain writes nothing.
    const p = pageAt(1280);
    const status = await p.evaluate(async () => {
      const res = await fetch("/console/api/models/chain", {
        method: "POST",
        headers: {
          "Content-Type": "application/json",
          "X-Clawbox-Session": localStorage.getItem("clawbox.console.session") ?? "",
        },
        body: JSON.stringify({ primary: "cloud", fallbacks: ["backup"] }),
      });
      return res.status;
    });
    expect(status).toBe(200);
    expect(untouched(), "the config file after the same chain").toBe(true);
    // A changed fallback is written, and only it.
    await p.locator("#fallback").selectOption("local");
    await p.locator("form.row button[type=submit]").click();
    await expect.poll(() => p.locator("#chain-result").textContent(), SLOW).toContain("Saved");
    const text = readFileSync(configFile, "utf8");
    expect(JSON5.parse(text).models).toMatchObject({ primary: "cloud", fallbacks: ["local"] });
    expect(text).toContain("// a household box");
    // The box applies the file again; the select shows the new fallback.
    await open(p, "models");
    expect(await p.locator("#fallback").inputValue()).toBe("local");
  });

  it("Channels: the policy in words; a channel set up here starts at pairing, the existing one keeps its own", async () => {
    for (const width of WIDTHS) {
      const p = pageAt(width);
      await open(p, "channels");
      const qqWords = p.locator("#channel-qq .dm-policy-words");
      await expect
        .poll(() => qqWords.textContent(), SLOW)
        .toBe(
          "Now (default, open): anyone who finds the bot gets answers (as a stranger, without the owner tools); /pair gives them a code.",
        );
      expect(await p.locator("#channel-qq select[name=dmPolicy]").inputValue()).toBe("");
      // The self-built app is not set up: its form starts at pairing, said in words.
      const app = p.locator("#channel-wecom-app");
      expect(await app.locator("select[name=dmPolicy]").inputValue()).toBe("pairing");
      await expect(app.locator(".dm-policy-words").textContent()).resolves.toContain(
        "anyone else gets a pairing code",
      );
      // The words follow the form.
      await p.locator("#channel-qq select[name=dmPolicy]").selectOption("allowlist");
      await expect(qqWords.textContent()).resolves.toContain("anyone else gets no answer at all");
      expect(await layoutProblems(p), `channels at ${width} px`).toEqual([]);
    }
    const p = pageAt(390);
    await open(p, "channels");
    const app = p.locator("#channel-wecom-app");
    await app.locator("input[name=corpId]").fill("ww0123456789abcdef");
    await app
      .locator("input[name=corpSecret]")
      .fill("corp-secret-0123456789abcdefghijklmnopqrstuv");
    await app.locator("input[name=agentId]").fill("1000002");
    await app.locator("input[name=token]").fill("callbackToken123");
    await app
      .locator("input[name=encodingAESKey]")
      .fill("abcdefghijklmnopqrstuvwxyz0123456789ABCDEFG");
    await app.locator("input[name=enabled]").uncheck();
    await app.locator("button.save").click();
    await expect.poll(() => app.locator(".result").textContent(), SLOW).toContain("Saved");
    const channels = JSON5.parse(readFileSync(configFile, "utf8")).channels;
    expect(channels.wecom.app.dmPolicy).toBe("pairing");
    expect(channels.qq.dmPolicy).toBeUndefined();
    expect(channels.wecom.bot.dmPolicy).toBeUndefined();
  });

  it("Reminders: one in Chinese for the QQ owner", async () => {
    const p = pageAt(390);
    await open(p, "reminders");
    await p.fill("#rem-text", "检查门廊摄像头，看看快递有没有送到，然后把垃圾拿出去");
    await p.selectOption("#rem-kind", "daily");
    await p.fill("#rem-when", "07:00");
    await p.selectOption("#rem-target", `qq:${QQ_MOTHER}`);
    await p.click("#reminder-form button[type=submit]");
    await expect.poll(() => p.locator("#rem-result").textContent(), SLOW).toContain("Added");
  });

  it('Memory: no files says none; one hit is "1 result"', async () => {
    const p = pageAt(390);
    await open(p, "memory");
    await expect(p.locator("#memory-files").textContent()).resolves.toBe("none yet");
    writeFileSync(
      join(home, "workspace", "MEMORY.md"),
      "# Memory\n\n- 妈妈每天早上七点吃降压药 (blood pressure pills at 07:00).\n- The porch camera is at 192.168.1.60.\n",
    );
    await open(p, "memory");
    await p.locator("#memory-query").fill("porch");
    await p.locator("#memory-query").press("Enter");
    await expect
      .poll(() => p.locator("#memory-results p").first().textContent(), SLOW)
      .toMatch(/: 1 result$/);
    expect(await layoutProblems(p), "memory at 390 px").toEqual([]);
  });

  it("every page at 390 and 1280 px: nothing wider than its box, no sideways scroll, no console error", async () => {
    for (const width of WIDTHS) {
      const p = pageAt(width);
      for (const name of PAGES) {
        await open(p, name);
        if (name === "status") {
          // The long doctor hint (a missing model file) is on screen, whole.
          await expect(p.locator("#checks").textContent()).resolves.toContain("fix:");
        }
        expect(await layoutProblems(p), `${name} at ${width} px`).toEqual([]);
        // One of a thing is said in the singular ("1 results", "1 files" were shown).
        // biome-ignore lint/performance/useDomNodeTextContent: the text as shown is the point
        const shown = await p.locator("main").innerText();
        expect(shown, name).not.toMatch(/\b1 (results|files|chunks|recalls|problems)\b/);
        // A table's row borders reach its right edge (they stopped short at 1280 px).
        const rows = await p.evaluate(`[...document.querySelectorAll("main table")]
          .filter((t) => t.checkVisibility())
          .map((t) => { const tr = t.querySelector("tbody tr"); return tr ? [t.getBoundingClientRect().width, tr.getBoundingClientRect().width, t.id] : null; })
          .filter(Boolean)`);
        for (const [table, row, id] of rows as [number, number, string][])
          expect(row, `${name} #${id} at ${width} px`).toBeGreaterThanOrEqual(table - 2);
        await shoot(p, `${name}-${width}`);
      }
    }
    expect(problems, problems.join("\n")).toEqual([]);
  }, 240_000);
});
