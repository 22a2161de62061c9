/**
 * Attack 4 of issue 37 through real reverse proxies (nginx and Caddy from Debian), each
 * configured with the very snippet docs/CHANNELS.md gives ("Behind a reverse proxy"), in
 * front of a real `clawbox run` without `server.token` whose model is a cloud fake. An
 * internet client tries `POST /api/chat` (which spent the owner's cloud budget as
 * `web:local`), the console, and path tricks that only start with `/channels/`; only the
 * webhook paths reach the box. A proxy that forwards everything (Caddy's plain
 * `reverse_proxy`) is refused by the box itself, since Caddy says it is a proxy. Then,
 * on a box with a token, five wrong console logins through a proxy lock the proxy's
 * clients, not the owner's own login on 127.0.0.1.
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ScriptedServer, startFakeOpenAI } from "../fakes/openai-server.ts";
import { type RunningService, startService } from "../support/run-service.ts";

const NGINX = "/usr/sbin/nginx";
const CADDY = "/usr/bin/caddy";
const HAVE_NGINX = spawnSync(NGINX, ["-v"]).status === 0;
const HAVE_CADDY = spawnSync(CADDY, ["version"]).status === 0;
const HAVE_CURL = spawnSync("curl", ["--version"]).status === 0;
if (!HAVE_NGINX) console.warn(`${NGINX} is absent (apt nginx-light): the nginx test is skipped`);
if (!HAVE_CADDY) console.warn(`${CADDY} is absent (apt caddy): the Caddy tests are skipped`);

const DOC = readFileSync(join(import.meta.dirname, "..", "..", "docs", "CHANNELS.md"), "utf8");
const SECTION = DOC.slice(DOC.indexOf("## Behind a reverse proxy"));
/** The first fenced block of `lang` in the docs' section. */
const snippet = (lang: string) => {
  const fence = "`".repeat(3);
  const match = new RegExp(`${fence}${lang}\\n([\\s\\S]*?)${fence}`).exec(SECTION);
  if (!match?.[1]) throw new Error(`docs/CHANNELS.md has no ${lang} snippet`);
  return match[1];
};

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
  const address = server.address();
  await new Promise((r) => server.close(r));
  return typeof address === "object" && address ? address.port : 0;
}

const dirs: string[] = [];
const procs: ChildProcess[] = [];
const tmp = (prefix: string) => {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  dirs.push(dir);
  return dir;
};

async function waitForPort(port: number): Promise<void> {
  for (let i = 0; i < 200; i++) {
    const ok = await fetch(`http://127.0.0.1:${port}/`).then(
      () => true,
      () => false,
    );
    if (ok) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`nothing listens on ${port}`);
}

/** The common "proxy everything" nginx site: Host rewritten (nginx's default), with XFF. */
const NGINX_EVERYTHING = `location / {
    proxy_pass http://127.0.0.1:18790;
    proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
}
`;

/** nginx with `locations` (default: the docs') in a server block on 127.0.0.1:<port>. */
async function startNginx(boxPort: number, locations = snippet("nginx")): Promise<number> {
  const port = await freePort();
  const prefix = tmp("clawbox-nginx-");
  mkdirSync(join(prefix, "logs"));
  const located = locations.replaceAll("127.0.0.1:18790", `127.0.0.1:${boxPort}`);
  writeFileSync(
    join(prefix, "nginx.conf"),
    [
      "worker_processes 1;",
      "pid nginx.pid;",
      "error_log logs/error.log;",
      "events { worker_connections 64; }",
      "http {",
      "  access_log off;",
      `  client_body_temp_path ${prefix}/body;`,
      `  proxy_temp_path ${prefix}/proxy;`,
      `  server { listen 127.0.0.1:${port}; server_name clawbox.example.com;`,
      located,
      "  }",
      "}",
    ].join("\n"),
  );
  const child = spawn(NGINX, ["-p", prefix, "-c", "nginx.conf", "-g", "daemon off;"], {
    stdio: "ignore",
  });
  procs.push(child);
  await waitForPort(port);
  return port;
}

/** Caddy with `site` (a Caddyfile site block for clawbox.example.com) on 127.0.0.1:<port>. */
async function startCaddy(site: string, boxPort: number): Promise<number> {
  const port = await freePort();
  const dir = tmp("clawbox-caddy-");
  const body = site
    .replaceAll("127.0.0.1:18790", `127.0.0.1:${boxPort}`)
    .replace("clawbox.example.com {", `http://clawbox.example.com:${port} {\n\tbind 127.0.0.1`);
  writeFileSync(join(dir, "Caddyfile"), `{\n\tadmin off\n\tauto_https off\n}\n${body}`);
  const child = spawn(
    CADDY,
    ["run", "--config", join(dir, "Caddyfile"), "--adapter", "caddyfile"],
    {
      env: { ...process.env, HOME: dir, XDG_DATA_HOME: dir, XDG_CONFIG_HOME: dir },
      stdio: "ignore",
    },
  );
  procs.push(child);
  await waitForPort(port);
  return port;
}

/** curl as an internet client would send it: the raw path (no dot-segment cleaning). */
function curl(
  port: number,
  path: string,
  options: { method?: string; body?: string; headers?: string[] } = {},
): { status: number; body: string } {
  const run = spawnSync(
    "curl",
    [
      "-s",
      "--path-as-is",
      "--max-time",
      "20",
      "-X",
      options.method ?? "GET",
      "-H",
      "Host: clawbox.example.com",
      ...(options.headers ?? []).flatMap((h) => ["-H", h]),
      ...(options.body !== undefined ? ["--data-binary", options.body] : []),
      "-w",
      "\n%{http_code}",
      `http://127.0.0.1:${port}${path}`,
    ],
    { encoding: "utf8" },
  );
  const at = run.stdout.lastIndexOf("\n");
  return { status: Number(run.stdout.slice(at + 1)), body: run.stdout.slice(0, at) };
}

const CHAT = {
  method: "POST",
  body: JSON.stringify({ message: "spend the owner's cloud budget" }),
  headers: ["Content-Type: application/json"],
};

afterAll(async () => {
  for (const p of procs) p.kill("SIGKILL");
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

describe.skipIf(!HAVE_CURL)("an internet client behind the docs' reverse proxy", () => {
  let model: ScriptedServer;
  let box: RunningService;
  let boxPort: number;

  beforeAll(async () => {
    model = await startFakeOpenAI();
    const home = tmp("clawbox-proxied-");
    writeFileSync(
      join(home, "clawbox.json"),
      JSON.stringify({
        memory: { enabled: false },
        models: {
          primary: "cloud",
          providers: {
            cloud: {
              kind: "openai",
              baseUrl: model.url,
              model: "fake",
              authProfiles: [{ id: "k", apiKey: "sk-cloud-budget-0123456789" }],
            },
          },
        },
      }),
    );
    box = await startService(["--port", "0"], { CLAWBOX_HOME: home, CLAWBOX_CONFIG: "" });
    boxPort = Number(new URL(box.url).port);
  }, 60_000);
  afterAll(async () => {
    box?.child.kill("SIGTERM");
    await box?.exited;
    await model?.close();
  });

  /** What each proxy must do: webhooks reach the box, nothing else runs a turn. */
  function attack(port: number) {
    const before = model.requests.length;
    for (const path of [
      "/api/chat",
      "/channels/qq/webhook/../../../api/chat",
      "/channels/%2e%2e/api/chat",
      "/channels/qq/webhook/%2e%2e/%2e%2e/%2e%2e/api/chat",
    ]) {
      const res = curl(port, path, CHAT);
      expect(res.status, path).not.toBe(200);
      expect(res.body, path).not.toContain('"reply"');
    }
    for (const path of ["/", "/console/", "/console/login", "/health"]) {
      const res = curl(port, path);
      expect([403, 404], path).toContain(res.status);
      expect(res.body, path).not.toContain("clawbox");
    }
    expect(model.requests.length).toBe(before);
    // The webhooks do reach the box: its own JSON answer (no channel is on here).
    for (const path of ["/channels/qq/webhook", "/channels/wecom/app"]) {
      const res = curl(port, path, { method: "POST", body: "{}" });
      expect(res.body, path).toContain("takes no webhooks");
    }
  }

  it.skipIf(!HAVE_NGINX)(
    "nginx with the docs' snippet forwards only the webhooks",
    async () => {
      attack(await startNginx(boxPort));
    },
    60_000,
  );

  it.skipIf(!HAVE_CADDY)(
    "Caddy with the docs' snippet forwards only the webhooks",
    async () => {
      attack(await startCaddy(snippet("caddy"), boxPort));
    },
    60_000,
  );

  /** A proxy for everything that rewrites Host: the box itself must refuse what it forwards. */
  function refusedByTheBox(port: number) {
    const before = model.requests.length;
    const res = curl(port, "/api/chat", CHAT);
    expect(res.status).toBe(403);
    expect(res.body).toContain("came through a proxy");
    expect(curl(port, "/console/").status).toBe(403);
    expect(model.requests.length).toBe(before);
  }

  it.skipIf(!HAVE_NGINX)(
    "an nginx that forwards everything (Host rewritten, X-Forwarded-For) gets 403 from the box: no turn runs as web:local",
    async () => refusedByTheBox(await startNginx(boxPort, NGINX_EVERYTHING)),
    60_000,
  );

  it.skipIf(!HAVE_CADDY)(
    "a Caddy that forwards everything (Host rewritten) gets 403 from the box",
    async () =>
      refusedByTheBox(
        await startCaddy(
          "clawbox.example.com {\n\treverse_proxy 127.0.0.1:18790 {\n\t\theader_up Host {upstream_hostport}\n\t}\n}\n",
          boxPort,
        ),
      ),
    60_000,
  );
});

describe.skipIf(!HAVE_CURL || !HAVE_NGINX)(
  "console logins through a proxy (server.token set)",
  () => {
    const TOKEN = "proxied-login-token-0123456789";
    let box: RunningService;

    beforeAll(async () => {
      const home = tmp("clawbox-proxied-login-");
      writeFileSync(
        join(home, "clawbox.json"),
        JSON.stringify({ server: { token: TOKEN }, memory: { enabled: false } }),
      );
      box = await startService(["--port", "0"], { CLAWBOX_HOME: home, CLAWBOX_CONFIG: "" });
    }, 60_000);
    afterAll(async () => {
      box?.child.kill("SIGTERM");
      await box?.exited;
    });

    it("five wrong logins through an nginx that forwards everything lock its clients, not the owner's local login", async () => {
      const boxPort = Number(new URL(box.url).port);
      const port = await startNginx(boxPort, NGINX_EVERYTHING);
      const login = (p: number, secret: string) =>
        spawnSync(
          "curl",
          [
            "-s",
            "-o",
            "/dev/null",
            "-w",
            "%{http_code}",
            "--data-urlencode",
            `secret=${secret}`,
            `http://127.0.0.1:${p}/console/login`,
          ],
          { encoding: "utf8" },
        ).stdout;
      for (let i = 0; i < 5; i++) expect(login(port, `wrong-guess-${i}`)).toBe("401");
      expect(login(port, TOKEN)).toBe("429");
      // The owner at the box itself (no proxy in between) still logs in.
      expect(login(boxPort, TOKEN)).toBe("200");
    }, 60_000);
  },
);
