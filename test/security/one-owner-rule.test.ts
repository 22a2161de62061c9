/**
 * Issue 37 ("Also"): "is this sender an owner" has one home (src/sessions/owner-rule.ts).
 * It was written twice and the copies disagreed: the session resolver counted
 * `web:token` (the HTTP request that carried server.token), the tool policy used by the
 * console's context page, `clawbox context` and MQTT's model choice did not.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { chooseModelOverMqtt } from "../../src/mqtt/model-choice.ts";
import {
  CLI_SENDER,
  createSessionResolver,
  isOwnerSender,
  MQTT_SENDER,
  WEB_LOCAL_SENDER,
  WEB_TOKEN_SENDER,
} from "../../src/sessions/index.ts";

const ROOT = join(import.meta.dirname, "../..");
const owners = ["cli", "qq:0123456789ABCDEF0123456789ABCDEF"];

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith(".ts") && !entry.name.endsWith(".test.ts") ? [path] : [];
  });
}

describe("one rule for who is an owner", () => {
  const table: [string | undefined, boolean][] = [
    [CLI_SENDER, true],
    ["qq:0123456789ABCDEF0123456789ABCDEF", true],
    [WEB_TOKEN_SENDER, true],
    [WEB_LOCAL_SENDER, false],
    [MQTT_SENDER, false],
    ["qq:FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF", false],
    ["web:owner", false],
    [undefined, false],
  ];

  it("the rule and the session resolver agree on every sender, web:token included", () => {
    const resolver = createSessionResolver({ id: "main", directSessionMode: "per-peer", owners });
    for (const [sender, owner] of table) {
      expect({ sender, rule: isOwnerSender(owners, sender) }).toEqual({ sender, rule: owner });
      expect({ sender, resolver: resolver.isOwner(sender) }).toEqual({ sender, resolver: owner });
    }
  });

  it("MQTT's model choice asks the same rule (web:token in agent.owners changes nothing for it)", () => {
    const chosen: string[] = [];
    const deps = (list: string[]) => ({
      config: {
        models: { providers: { cloud: { kind: "openai" } } } as never,
        agent: { owners: list },
      },
      agent: { selectModel: (id: string) => void chosen.push(id) },
      modelIds: ["cloud"],
      logger: { warn() {}, info() {} } as never,
    });
    expect(chooseModelOverMqtt("cloud", deps(owners))).toMatch(/cloud model/);
    expect(chooseModelOverMqtt("cloud", deps([...owners, MQTT_SENDER]))).toBeUndefined();
    expect(chosen).toEqual(["cloud"]);
  });

  it("no other source file decides ownership from agent.owners or web:token itself", () => {
    const offenders: string[] = [];
    for (const file of sourceFiles(join(ROOT, "src"))) {
      const rel = relative(ROOT, file);
      if (rel === "src/sessions/owner-rule.ts" || rel.startsWith("src/pairing/")) continue;
      const text = readFileSync(file, "utf8");
      if (/owners\s*\.\s*(includes|indexOf|some|find)\(|["']web:token["']/.test(text))
        offenders.push(rel);
    }
    expect(offenders).toEqual([]);
  });
});
