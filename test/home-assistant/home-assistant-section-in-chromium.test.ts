/**
 * The Channels page's "Home Assistant" section in headless Chromium on a phone (390 px)
 * against a real `clawbox run` and the fake of HA's MCP endpoint: Test says what a wrong
 * token gets from HA in plain words, the right one is accepted, Save applies it without a
 * restart (the live state turns "connected"), the token never comes back to the browser, and
 * the page has no horizontal scroll and no console errors.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Browser, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FakeHomeAssistant, startFakeHomeAssistant } from "../fakes/home-assistant-mcp.ts";
import { waitUntil } from "../fakes/qq-platform.ts";
import { CLAWBOX_BIN } from "../support/spawn-cli.ts";

const CHROMIUM = "/usr/bin/chromium";
const HAVE_CHROMIUM = existsSync(CHROMIUM);
if (!HAVE_CHROMIUM)
  console.warn(`Home Assistant section browser test skipped: ${CHROMIUM} is not installed`);
const SHOTS = join(import.meta.dirname, "..", ".artifacts", "home-assistant");
const TOKEN =
  "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJpc3MiOiI3ZjNhOWMxZTJiNGQ0ZjY4OTAxMjM0NTY3ODlhYmNkZWYifQ.dGhpcy1pcy1hLWZha2Utc2lnbmF0dXJl";

describe.skipIf(!HAVE_CHROMIUM)("the Home Assistant section on a phone (headless Chromium)", () => {
  let home: string;
  let configFile: string;
  let ha: FakeHomeAssistant;
  let box: ChildProcess;
  let output = "";
  let base: string;
  let browser: Browser;
  let page: Page;
  const problems: string[] = [];

  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true });
    ha = await startFakeHomeAssistant({ token: TOKEN });
    home = mkdtempSync(join(tmpdir(), "clawbox-ha-page-"));
    configFile = join(home, "clawbox.json");
    writeFileSync(configFile, "// a fresh box\n{\n  memory: { enabled: false },\n}\n");
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
    const phone = await browser.newContext({ viewport: { width: 390, height: 844 } });
    page = await phone.newPage();
    page.on("console", (m) => {
      if (m.type() === "error") problems.push(m.text());
    });
    page.on("pageerror", (e) => problems.push(e.message));
    await page.goto(base);
    await page.waitForSelector("input[name=secret]");
    await page.fill(
      "input[name=secret]",
      readFileSync(join(home, "console-secret"), "utf8").trim(),
    );
    await Promise.all([page.waitForURL(`${base}/`), page.click("button[type=submit]")]);
  }, 90_000);

  afterAll(async () => {
    await browser?.close();
    box?.kill("SIGTERM");
    await ha?.close();
    if (home) rmSync(home, { recursive: true, force: true });
  });

  it("Test names a refused token, the right one is accepted, Save connects without a restart", async () => {
    await page.goto(`${base}/#channels`);
    const card = page.locator("#channel-home-assistant");
    await card.locator("input[name=url]").fill(ha.url);
    await card.locator("input[name=token]").fill("a-wrong-token-from-another-profile");
    await card.locator("button.test").click();
    const result = card.locator(".result");
    await expect
      .poll(() => result.textContent())
      .toContain("Home Assistant refused the token (HTTP 401)");
    await card.locator("input[name=token]").fill(TOKEN);
    await card.locator("button.test").click();
    await expect.poll(() => result.textContent()).toContain("answered: 8 tools the box can use");
    await card.locator("button.save").click();
    await expect.poll(() => result.textContent()).toContain("Saved and applied");
    await expect
      .poll(
        () => page.locator("#card-home-assistant .status [data-state]").getAttribute("data-state"),
        {
          timeout: 15_000,
        },
      )
      .toBe("connected");
    expect(await page.content()).not.toContain(TOKEN);
    const scroll = await page.evaluate<number>("document.documentElement.scrollWidth");
    expect(scroll).toBeLessThanOrEqual(390);
    const box = await card.boundingBox();
    expect(box?.width ?? 0).toBeLessThanOrEqual(390);
    await page.screenshot({ path: join(SHOTS, "home-assistant-ready-390.png"), fullPage: true });
    expect(problems).toEqual([]);
    expect(readFileSync(configFile, "utf8")).toContain("// a fresh box");
  }, 60_000);
});
