/**
 * `npm run bench -- console-weight [--json]`: what a phone downloads to show the web
 * console, as a real `clawbox run` serves it with `Accept-Encoding: gzip`: the login page
 * and its small script, the app shell (the same for everyone: the session is a token the
 * script sends as a header, not a cookie), the script and the styles, each as bytes on
 * the wire. Every page of the console is drawn by
 * that one script, so this is the whole first load; the pages' data comes later as JSON.
 * Target (issue 24): ≤ 150 KB gzipped in all. Exits 1 when over.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

const LIMIT_BYTES = 150 * 1024;
const json = process.argv.includes("--json");
const root = resolve(import.meta.dir, "../..");
const home = mkdtempSync(join(tmpdir(), "clawbox-console-weight-"));
writeFileSync(join(home, "clawbox.json"), JSON.stringify({ memory: { enabled: false } }));
const box = spawn(join(root, "bin", "clawbox"), ["run", "--port", "0"], {
  env: { ...process.env, CLAWBOX_HOME: home, CLAWBOX_CONFIG: "" },
  stdio: ["ignore", "pipe", "pipe"],
});
let out = "";
box.stdout?.on("data", (d) => {
  out += d;
});

try {
  const deadline = Date.now() + 30_000;
  while (!/listening on (\S+)/.test(out)) {
    if (Date.now() > deadline) throw new Error(`clawbox run did not start:\n${out}`);
    await Bun.sleep(50);
  }
  const base = /listening on (\S+)/.exec(out)?.[1] ?? "";
  /** Bytes on the wire (not unzipped) and unzipped bytes. */
  const fetchSize = async (url: string) => {
    const res = await fetch(url, {
      headers: { "Accept-Encoding": "gzip" },
      decompress: false,
      redirect: "manual",
    } as RequestInit);
    const wire = (await res.arrayBuffer()).byteLength;
    return { res, wire, gzip: res.headers.get("content-encoding") === "gzip" };
  };
  const login = await fetchSize(`${base}/console/login`);
  const loginText = await (await fetch(`${base}/console/login`)).text();
  const loginScript = /src="([^"]+login\.js[^"]*)"/.exec(loginText)?.[1] ?? "";
  const loginJs = await fetchSize(`${base}${loginScript}`);
  const shellText = await (await fetch(`${base}/`)).text();
  const shell = await fetchSize(`${base}/`);
  const script = /src="([^"]+console\.js[^"]*)"/.exec(shellText)?.[1] ?? "";
  const styles = /href="([^"]+console\.css[^"]*)"/.exec(shellText)?.[1] ?? "";
  const js = await fetchSize(`${base}${script}`);
  const css = await fetchSize(`${base}${styles}`);
  const rawJs = (await (await fetch(`${base}${script}`)).text()).length;
  const total = login.wire + loginJs.wire + shell.wire + js.wire + css.wire;
  const kb = (n: number) => Math.round((n / 1024) * 10) / 10;
  const result = {
    loginPageKb: kb(login.wire),
    loginScriptKb: kb(loginJs.wire),
    shellKb: kb(shell.wire),
    scriptKb: kb(js.wire),
    scriptGzip: js.gzip,
    scriptRawKb: kb(rawJs),
    stylesKb: kb(css.wire),
    stylesGzip: css.gzip,
    firstLoadKb: kb(total),
    limitKb: LIMIT_BYTES / 1024,
  };
  if (json) console.log(JSON.stringify(result));
  else {
    console.log(
      `login page        ${result.loginPageKb} KB (+ login.js ${result.loginScriptKb} KB)`,
    );
    console.log(`app shell (HTML)  ${result.shellKb} KB`);
    console.log(`console.js        ${result.scriptKb} KB gzipped (${result.scriptRawKb} KB raw)`);
    console.log(`console.css       ${result.stylesKb} KB gzipped`);
    console.log(`first load        ${result.firstLoadKb} KB of ${result.limitKb} KB allowed`);
  }
  if (total > LIMIT_BYTES || !js.gzip || !css.gzip || loginJs.wire === 0) process.exitCode = 1;
} finally {
  box.kill("SIGTERM");
  await new Promise((r) => box.once("exit", r));
  rmSync(home, { recursive: true, force: true });
}
