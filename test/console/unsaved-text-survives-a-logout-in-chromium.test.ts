/**
 * A first-time user lost a Workspace edit: the service restarted (sessions live in
 * memory), the Save got 401 and the page became the login form with no word about the
 * text. Now the unsaved text is kept in the tab's sessionStorage, the login form says
 * so, and after logging in again the console comes back to the Workspace with the text
 * in the editor (still unsaved). Leaving the page through the navigation with unsaved
 * text asks first. A real `clawbox run` and Debian's Chromium at a phone's width; the
 * session is ended behind the page's back with the logout route, as a restart would.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Browser, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningService, startService } from "../support/run-service.ts";

const CHROMIUM = "/usr/bin/chromium";
const HAVE_CHROMIUM = existsSync(CHROMIUM);
if (!HAVE_CHROMIUM) console.warn(`unsaved-text browser test skipped: ${CHROMIUM} is not installed`);

const TOKEN = "unsaved-text-token-0123456789";
const EDIT = "# Notes\nThe bins go out on Tuesday.\n";
/** Two cores shared with other test runs: a page may take seconds to answer. */
const SLOW = { timeout: 10_000 };

describe.skipIf(!HAVE_CHROMIUM)("unsaved Workspace text and a logout (Chromium)", () => {
  let home: string;
  let box: RunningService;
  let base: string;
  let browser: Browser;
  let page: Page;
  const problems: string[] = [];

  const userFile = () => {
    const file = join(home, "workspace", "USER.md");
    return existsSync(file) ? readFileSync(file, "utf8") : "";
  };
  /** The session ends behind the page's back (a restart does the same). */
  const endSessionBehindThePage = async () => {
    const token = await page.evaluate(() => localStorage.getItem("clawbox.console.session"));
    const out = await fetch(`${base}/console/api/logout`, {
      method: "POST",
      headers: { "X-Clawbox-Session": token ?? "", "Content-Type": "application/json" },
      body: "{}",
    });
    expect(out.status).toBe(200);
  };
  const logIn = async () => {
    await page.locator('input[name="secret"]').fill(TOKEN);
    await page.locator('button[type="submit"]').click();
  };

  /**
   * The address says #workspace (the editor showing `shown`); the person picks `file` in
   * the list, types, and is logged out behind the page's back: after the login the
   * console reopens `file` with the draft and a note.
   */
  const draftComesBackInItsFile = async (shown: string, file: string) => {
    await page.goto(`${base}/#status`);
    await page.locator("h1", { hasText: "Status" }).waitFor();
    await page.goto(`${base}/#workspace`);
    await expect.poll(() => page.locator("#ws-file").inputValue(), SLOW).toBe(shown);
    await page.locator("#ws-file").selectOption(file);
    expect(page.url()).toBe(`${base}/#workspace`);
    const editor = page.locator("#ws-text");
    await expect.poll(() => editor.getAttribute("readonly"), SLOW).toBeNull();
    const draft = `# ${file}\n每天早上检查门廊摄像头，提醒妈妈吃药。\n`;
    await editor.fill(draft);
    await endSessionBehindThePage();
    await page.locator("#ws-save").click();
    await page.waitForURL(`${base}/console/login`);
    await logIn();
    await page.waitForURL(`${base}/#workspace/${file}`);
    await expect.poll(() => page.locator("#ws-file").inputValue(), SLOW).toBe(file);
    await expect.poll(() => editor.inputValue(), SLOW).toBe(draft);
    await expect
      .poll(() => page.locator("#ws-result").textContent(), SLOW)
      .toContain("Your unsaved text from before the logout is back");
    await page.locator("#ws-save").click();
    await expect.poll(() => page.locator("#ws-result").textContent(), SLOW).toContain("Saved");
    expect(readFileSync(join(home, "workspace", file), "utf8")).toBe(draft);
    expect(problems).toEqual([]);
  };
  /** A tab reopened at a page after its session ended (or with none) logs in to that page. */
  const staleLoginLandsOnThePage = async () => {
    await page.goto(`${base}/#reminders`);
    await page.locator("h1", { hasText: "Reminders" }).waitFor();
    await endSessionBehindThePage();
    // The tab is opened again later (the session has ended meanwhile) at the page it showed.
    await page.goto(`${base}/#sessions`);
    await page.waitForURL(`${base}/console/login`);
    await logIn();
    await page.waitForURL(`${base}/#sessions`);
    await page.locator("h1", { hasText: "Sessions" }).waitFor();
    // With no session at all (a new tab of a stored link), the same.
    await page.evaluate(() => localStorage.removeItem("clawbox.console.session"));
    await page.goto(`${base}/#models`);
    await page.waitForURL(`${base}/console/login`);
    await logIn();
    await page.waitForURL(`${base}/#models`);
    await page.locator("h1", { hasText: "Models" }).waitFor();
    expect(problems).toEqual([]);
  };

  beforeAll(async () => {
    home = mkdtempSync(join(tmpdir(), "clawbox-unsaved-"));
    writeFileSync(
      join(home, "clawbox.json"),
      `{ server: { token: "${TOKEN}" }, memory: { enabled: false } }\n`,
    );
    box = await startService(["--port", "0"], { CLAWBOX_HOME: home, CLAWBOX_CONFIG: "" });
    base = box.url;
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"],
    });
    const phone = await browser.newContext({ viewport: { width: 390, height: 844 } });
    page = await phone.newPage();
    page.on("pageerror", (error) => problems.push(error.message));
  }, 90_000);

  afterAll(async () => {
    await browser?.close();
    box?.child.kill("SIGTERM");
    await box?.exited;
    if (home) rmSync(home, { recursive: true, force: true });
  });

  it("keeps the text through a 401 on Save and gives it back after the login", async () => {
    await page.goto(`${base}/console/login`);
    await logIn();
    await page.waitForURL(`${base}/`);
    await page.goto(`${base}/#workspace/USER.md`);
    const editor = page.locator("#ws-text");
    await editor.waitFor();
    await expect.poll(() => page.locator("#ws-file").inputValue()).toBe("USER.md");
    await editor.fill(EDIT);
    await endSessionBehindThePage();
    await page.locator("#ws-save").click();
    await page.waitForURL(`${base}/console/login`);
    await expect
      .poll(() => page.locator("#logged-out-note").textContent())
      .toBe("You were logged out; log in again and your text will still be here.");
    await logIn();
    await page.waitForURL(`${base}/#workspace/USER.md`);
    await expect.poll(() => editor.inputValue()).toBe(EDIT);
    await expect
      .poll(() => page.locator("#ws-result").textContent())
      .toContain("Your unsaved text from before the logout is back");
    expect(userFile()).not.toContain("bins go out");
  });

  it("asks before the navigation leaves unsaved text; Save then keeps it", async () => {
    const asked: string[] = [];
    page.once("dialog", (dialog) => {
      asked.push(dialog.message());
      void dialog.dismiss();
    });
    await page.locator('nav a[data-page="status"]').click();
    await expect.poll(() => asked.length).toBe(1);
    expect(asked[0]).toContain("Leave without saving your changes to USER.md?");
    expect(await page.locator("#ws-text").inputValue()).toBe(EDIT);
    expect(page.url()).toBe(`${base}/#workspace/USER.md`);
    await page.locator("#ws-save").click();
    await expect.poll(() => page.locator("#ws-result").textContent()).toContain("Saved");
    expect(userFile()).toBe(EDIT);
    await page.locator('nav a[data-page="status"]').click();
    await page.locator("h1", { hasText: "Status" }).waitFor();
    expect(problems).toEqual([]);
  });

  it("a draft of a file picked in the list (not in the address) comes back in that file, with a note", async () => {
    await draftComesBackInItsFile("USER.md", "HEARTBEAT.md");
  });

  it("a stale page asked for goes to the login, and the login lands on that page", async () => {
    await staleLoginLandsOnThePage();
  });

  it("a TOOLS.md saved with a problem says so in the warning style, not as a plain success", async () => {
    await page.goto(`${base}/#workspace/TOOLS.md`);
    await expect.poll(() => page.locator("#ws-file").inputValue()).toBe("TOOLS.md");
    await page
      .locator("#ws-text")
      .fill("# Tools\n\n## Cameras\n\n- name: porch\n  url: ftp://192.168.1.60/snap.jpg\n");
    await page.locator("#ws-save").click();
    const result = page.locator("#ws-result");
    await expect
      .poll(() => result.textContent())
      .toBe("Saved, with 1 problem below: that line is ignored until fixed.");
    expect(await result.getAttribute("class")).toBe("result warn");
    expect(problems).toEqual([]);
  });

  it("text typed while a slow box still sends the file is not replaced by the file", async () => {
    // A Pi under load answers the file's read late; the editor stays read-only until then,
    // so what the person types (fill waits for an editable field) is what Save writes.
    writeFileSync(join(home, "workspace", "AGENTS.md"), "# Old rules\n");
    const slowRead = /\/console\/api\/workspace\/AGENTS\.md$/;
    await page.route(slowRead, async (route) => {
      await new Promise((r) => setTimeout(r, 1_500));
      await route.continue();
    });
    await page.goto(`${base}/#workspace/AGENTS.md`);
    await expect.poll(() => page.locator("#ws-file").inputValue()).toBe("AGENTS.md");
    await page.locator("#ws-text").fill("# New rules\n");
    await page.unroute(slowRead);
    expect(await page.locator("#ws-text").inputValue()).toBe("# New rules\n");
    await page.locator("#ws-save").click();
    await expect.poll(() => page.locator("#ws-result").textContent()).toContain("Saved");
    expect(readFileSync(join(home, "workspace", "AGENTS.md"), "utf8")).toBe("# New rules\n");
    expect(problems).toEqual([]);
  });

  it("at 1280 px too: a draft reopens its file, a stale page's login lands on it", async () => {
    const desk = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    page = await desk.newPage();
    page.on("pageerror", (error) => problems.push(error.message));
    await page.goto(`${base}/console/login`);
    await logIn();
    await page.waitForURL(`${base}/`);
    await draftComesBackInItsFile("TOOLS.md", "SOUL.md");
    await staleLoginLandsOnThePage();
    await desk.close();
  });
});
