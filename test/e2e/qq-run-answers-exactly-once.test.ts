import { describe, expect, it } from "vitest";
import { Store } from "../../src/store/index.ts";
import { waitUntil } from "../fakes/qq-platform.ts";
import { spawnCli } from "../support/spawn-cli.ts";
import { kill9, prepareQqRun } from "./qq-run-support.ts";

const settle = () => new Promise((done) => setTimeout(done, 1500));

function outboxStates(home: string): { state: string; n: number }[] {
  const store = Store.open({ path: `${home}/clawbox.db` });
  try {
    return store.db
      .query("SELECT state, COUNT(*) AS n FROM channel_outbox GROUP BY state")
      .all() as { state: string; n: number }[];
  } finally {
    store.close();
  }
}

describe("clawbox run with channels.qq against the fake QQ platform", () => {
  it("answers a C2C message and a group @-message exactly once each, with the right msg_id", {
    timeout: 60_000,
  }, async () => {
    const run = await prepareQqRun();
    try {
      await run.startIdentified();
      const c2c = run.platform.c2c("USER_A", "hello box");
      const group = run.platform.groupAt("GROUP_1", "MEMBER_B", "hello group");
      await waitUntil(() => run.platform.sent.length >= 2, 20_000, "two replies");
      await settle();
      expect(run.platform.sent).toHaveLength(2);
      expect(
        run.platform.sent.map((m) => [m.chatType, m.peerId, m.body.msg_id, m.body.msg_seq]).sort(),
      ).toEqual(
        [
          ["direct", "USER_A", c2c, 1],
          ["group", "GROUP_1", group, 1],
        ].sort(),
      );
      expect(run.platform.sent.every((m) => m.body.content === "ok")).toBe(true);
      expect(run.model.requests).toHaveLength(2);

      // The same state from another process (CLI), from doctor, and over /health.
      const env = { CLAWBOX_HOME: run.home, CLAWBOX_CONFIG: "" };
      const cli = await spawnCli(["channels", "status", "--json"], env);
      expect(cli.code).toBe(0);
      const [qq] = (JSON.parse(cli.stdout) as { channels: Record<string, unknown>[] }).channels;
      expect(qq).toMatchObject({
        channel: "qq",
        enabled: true,
        state: "connected",
        inbox: { answered: 2 },
        outbox: { sent: 2 },
      });
      expect(typeof qq?.lastEventAt).toBe("number");
      const text = await spawnCli(["channels", "status"], env);
      expect(text.stdout).toContain("qq: connected");
      const doctor = await spawnCli(["doctor", "--json"], env);
      const checks = (JSON.parse(doctor.stdout) as { checks: { name: string; status: string }[] })
        .checks;
      expect(checks.find((c) => c.name === "channel qq")?.status).toBe("ok");
      const health = (await (await fetch(`${run.url()}/health`)).json()) as { channels: unknown[] };
      expect(health.channels[0]).toMatchObject({ channel: "qq", state: "connected" });
      expect(JSON.stringify(health)).not.toContain(run.platform.clientSecret);
    } finally {
      await run.close();
    }
  });

  it("kill -9 while the model is answering: after the restart the reply is sent once", {
    timeout: 90_000,
  }, async () => {
    const run = await prepareQqRun();
    try {
      run.model.enqueue({ kind: "hang" });
      const first = await run.startIdentified();
      const id = run.platform.c2c("USER_A", "what time is it?");
      await waitUntil(() => run.model.requests.length === 1, 20_000, "the model call");
      await kill9(first);
      expect(run.platform.arrivals).toBe(0);
      await run.start();
      await waitUntil(() => run.platform.sent.length === 1, 30_000, "the reply after restart");
      // The platform delivers the same event again after the reconnect: no second answer.
      await waitUntil(
        () => run.platform.connections.length >= 2 && run.platform.connected,
        15_000,
        "reconnect",
      );
      run.platform.c2c("USER_A", "what time is it?", id);
      await settle();
      expect(run.platform.sent).toHaveLength(1);
      expect(run.platform.sent[0]?.body).toMatchObject({ msg_id: id, msg_seq: 1 });
      expect(run.model.requests).toHaveLength(2);
    } finally {
      await run.close();
    }
  });

  it("kill -9 after the reply was stored but before the platform accepted it: sent once after the restart", {
    timeout: 90_000,
  }, async () => {
    const run = await prepareQqRun();
    try {
      run.platform.failNextSends(1, 500);
      const first = await run.startIdentified();
      const id = run.platform.c2c("USER_A", "remind me");
      await waitUntil(() => run.platform.attempts.length === 1, 20_000, "the failed first send");
      await kill9(first);
      expect(run.platform.sent).toHaveLength(0);
      const gone = await spawnCli(["channels", "status", "--json"], {
        CLAWBOX_HOME: run.home,
        CLAWBOX_CONFIG: "",
      });
      expect(JSON.parse(gone.stdout).channels[0]).toMatchObject({
        state: "stopped",
        reason: "clawbox run is not running",
        inbox: { answered: 1 },
      });
      await run.start();
      await waitUntil(() => run.platform.sent.length === 1, 30_000, "the reply after restart");
      await settle();
      expect(run.platform.sent).toHaveLength(1);
      expect(run.platform.sent[0]?.body).toMatchObject({ msg_id: id, msg_seq: 1 });
      expect(run.model.requests).toHaveLength(1);
    } finally {
      await run.close();
    }
  });

  it("kill -9 after the platform accepted the reply but before its answer arrived: not sent twice", {
    timeout: 90_000,
  }, async () => {
    const run = await prepareQqRun();
    try {
      run.platform.holdSends();
      const first = await run.startIdentified();
      const id = run.platform.c2c("USER_A", "turn on the lights");
      await waitUntil(
        () => run.platform.sent.length === 1,
        20_000,
        "the platform accepting the reply",
      );
      await kill9(first);
      run.platform.releaseSends();
      await run.start();
      // The restarted process resends the interrupted item with the same msg_seq; QQ dedupes it.
      await waitUntil(() => run.platform.attempts.length === 2, 30_000, "the resend");
      await settle();
      expect(run.platform.sent).toHaveLength(1);
      expect(run.platform.attempts.map((a) => [a.status, a.body.msg_id, a.body.msg_seq])).toEqual([
        [200, id, 1],
        [400, id, 1],
      ]);
      expect(run.model.requests).toHaveLength(1);
      const { home } = run;
      await run.close();
      expect(outboxStates(home)).toEqual([{ state: "sent", n: 1 }]);
    } finally {
      await run.close();
    }
  });
});
