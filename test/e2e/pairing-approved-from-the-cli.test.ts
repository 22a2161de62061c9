/**
 * Pairing with the box's terminal instead of the console: a real `clawbox run` on the
 * fake QQ platform, and `clawbox pairing` as separate processes on the same home. A QQ
 * stranger's `/pair` shows up in `clawbox pairing list`; `approve` writes them into
 * `agent.owners`, the running service applies it within its 2-second config check (no
 * restart) and tells them on QQ; their next turn has the owner tools. `deny` drops a
 * request, a used or unknown code exits 2, and `/pair` in a group gives no code.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import JSON5 from "json5";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { waitUntil } from "../fakes/qq-platform.ts";
import { spawnCli } from "../support/spawn-cli.ts";
import { prepareQqRun, type QqRun } from "./qq-run-support.ts";

let run: QqRun;
const USER = "PAIR_USER_1";

const sentTo = (peer: string) => run.platform.sent.filter((m) => m.peerId === peer);
const codeIn = (m: { body: Record<string, unknown> } | undefined) =>
  /code is ([A-Z2-9]{4}-[A-Z2-9]{4})/.exec(String(m?.body.content ?? ""))?.[1] ?? "";
const cli = (...args: string[]) => spawnCli(args, { CLAWBOX_HOME: run.home, CLAWBOX_CONFIG: "" });
const toolsOf = (body: Record<string, unknown> | undefined) =>
  ((body?.tools ?? []) as { function: { name: string } }[]).map((t) => t.function.name);

beforeAll(async () => {
  run = await prepareQqRun();
  await run.startIdentified();
}, 60_000);

afterAll(async () => {
  await run?.close();
});

describe("pairing approved with clawbox pairing", () => {
  it("lists the request, approves it, and the running box treats them as an owner at once", async () => {
    run.platform.c2c(USER, "/pair");
    await waitUntil(() => sentTo(USER).length === 1, 15_000, "the code");
    const code = codeIn(sentTo(USER)[0]);
    expect(code).not.toBe("");
    const list = await cli("pairing", "list", "--json");
    expect(list.code).toBe(0);
    const listed = JSON.parse(list.stdout) as { pending: { display: string; ownerId: string }[] };
    expect(listed.pending).toMatchObject([{ display: code, ownerId: `qq:${USER}` }]);

    const approved = await cli("pairing", "approve", code.toLowerCase());
    expect(approved.code).toBe(0);
    expect(approved.stdout).toContain(`qq:${USER} is now an owner`);
    const owners = JSON5.parse(readFileSync(join(run.home, "clawbox.json"), "utf8")).agent.owners;
    expect(owners).toEqual(["cli", `qq:${USER}`]);
    // The running service sends the approval the CLI stored (a second reply to /pair).
    await waitUntil(() => sentTo(USER).length === 2, 15_000, "the approval on QQ");
    expect(String(sentTo(USER)[1]?.body.content)).toContain("You are now an owner");
    expect(sentTo(USER)[1]?.body.msg_seq).toBe(2);
    // Within the config check (2 s) the service knows; no restart.
    await Bun.sleep(2_500);
    const before = run.model.requests.length;
    run.platform.c2c(USER, "hello");
    await waitUntil(() => run.model.requests.length > before, 15_000, "the owner's turn");
    expect(toolsOf(run.model.requests.at(-1)?.body)).toEqual(
      expect.arrayContaining(["exec", "cron", "write"]),
    );
    const again = await cli("pairing", "approve", code);
    expect(again.code).toBe(2);
    expect(again.stderr).toContain("no pending pairing request");
  }, 60_000);

  it("denies a request; a group /pair gives no code; a stranger still has no owner tools", async () => {
    run.platform.c2c("PAIR_USER_2", "/pair");
    await waitUntil(() => sentTo("PAIR_USER_2").length === 1, 15_000, "the second code");
    const code = codeIn(sentTo("PAIR_USER_2")[0]);
    const denied = await cli("pairing", "deny", code);
    expect(denied.code).toBe(0);
    const list = JSON.parse((await cli("pairing", "list", "--json")).stdout) as {
      pending: unknown[];
    };
    expect(list.pending).toEqual([]);
    run.platform.groupAt("GROUP_1", "PAIR_USER_3", "/pair");
    await waitUntil(() => sentTo("GROUP_1").length === 1, 15_000, "the group hint");
    expect(String(sentTo("GROUP_1")[0]?.body.content)).toContain("only in a direct chat");
    expect(codeIn(sentTo("GROUP_1")[0])).toBe("");
    const after = JSON.parse((await cli("pairing", "list", "--json")).stdout) as {
      pending: unknown[];
    };
    expect(after.pending).toEqual([]);
    const before = run.model.requests.length;
    run.platform.c2c("PAIR_USER_2", "hello");
    await waitUntil(() => run.model.requests.length > before, 15_000, "the stranger's turn");
    expect(toolsOf(run.model.requests.at(-1)?.body)).not.toContain("exec");
  }, 60_000);
});
