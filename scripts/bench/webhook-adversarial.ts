/**
 * `npm run bench -- webhook-adversarial [--json] [--rounds N]`: a real `clawbox run` with
 * both platform webhooks on (QQ webhook mode, the WeCom app's callback URL; platform
 * APIs are loopback fakes) takes the hostile, unsigned 256 KB bodies of issue 23
 * (test/support/webhook-box.ts): each one N times in a row, then 4 at once, while
 * `/health` is asked every 10 ms. Reports the worst answer time per attack and per
 * webhook, and the worst `/health` time and whether every `/health` got 200. Before
 * the fix the WeCom CDATA body took 3.4 s per request and `/health` 2.4 s.
 */
import { hostileRequests, startWebhookBox } from "../../test/support/webhook-box.ts";

const args = process.argv.slice(2);
const json = args.includes("--json");
const roundsArg = args.indexOf("--rounds");
const rounds = roundsArg >= 0 ? Number(args[roundsArg + 1]) : 8;
const log = (line: string) => {
  if (!json) console.log(line);
};

const round = (ms: number) => Math.round(ms * 10) / 10;

const box = await startWebhookBox();
try {
  let probing = true;
  const health = { worstMs: 0, answered: 0, failed: 0 };
  const probe = (async () => {
    while (probing) {
      const start = performance.now();
      const status = await fetch(`${box.url}/health`)
        .then((r) => r.status)
        .catch(() => 0);
      health.worstMs = Math.max(health.worstMs, performance.now() - start);
      if (status === 200) health.answered++;
      else health.failed++;
      await Bun.sleep(10);
    }
  })();

  const timed = async (path: string, init: RequestInit) => {
    const start = performance.now();
    const response = await fetch(`${box.url}${path}`, init);
    await response.arrayBuffer();
    return { ms: performance.now() - start, status: response.status };
  };

  // One of each first, unmeasured: the first request of a route loads and compiles its code.
  for (const attack of hostileRequests()) await timed(attack.path, attack.init);
  const attacks = [];
  for (const attack of hostileRequests()) {
    const bytes = Buffer.byteLength(String(attack.init.body ?? ""));
    const serial: number[] = [];
    const statuses = new Set<number>();
    for (let i = 0; i < rounds; i++) {
      const r = await timed(attack.path, attack.init);
      serial.push(r.ms);
      statuses.add(r.status);
    }
    const parallel = await Promise.all(
      Array.from({ length: 4 }, () => timed(attack.path, attack.init)),
    );
    for (const r of parallel) statuses.add(r.status);
    const result = {
      webhook: attack.webhook,
      attack: attack.name,
      bytes,
      statuses: [...statuses],
      worstMs: round(Math.max(...serial)),
      worstOf4ParallelMs: round(Math.max(...parallel.map((r) => r.ms))),
    };
    attacks.push(result);
    log(
      `${result.webhook.padEnd(9)} ${result.attack.padEnd(32)} ${(bytes / 1024).toFixed(0)} KB → ${result.statuses.join("/")}: worst ${result.worstMs} ms, 4 at once ${result.worstOf4ParallelMs} ms`,
    );
  }
  probing = false;
  await probe;

  const perWebhook: Record<string, number> = {};
  for (const a of attacks)
    perWebhook[a.webhook] = Math.max(perWebhook[a.webhook] ?? 0, a.worstMs, a.worstOf4ParallelMs);
  const report = {
    bench: "webhook-adversarial",
    rounds,
    worstMsPerWebhook: perWebhook,
    health: {
      worstMs: round(health.worstMs),
      answered: health.answered,
      failed: health.failed,
    },
    attacks,
  };
  log(
    `worst per webhook: ${Object.entries(perWebhook)
      .map(([k, v]) => `${k} ${v} ms`)
      .join(
        ", ",
      )}; /health: ${health.answered} answered, ${health.failed} failed, worst ${round(health.worstMs)} ms`,
  );
  if (json) console.log(JSON.stringify(report));
} finally {
  await box.close();
}
