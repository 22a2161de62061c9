/** `clawbox doctor`: checks everything a box needs and prints ok/warn/fail with the fix. */
import {
  type CheckResult,
  checkBackups,
  checkConfig,
  checkConsolePort,
  checkDatabase,
  checkHome,
  checkModelPrivacy,
  checkModels,
  checkWebhookToken,
  checkWorkspace,
  formatCheck,
} from "../../doctor/index.ts";
import { errorMessage } from "../../errors/index.ts";
import { createMemory, memoryDoctorChecks } from "../../memory/index.ts";
import { mqttDoctorChecks } from "../../mqtt/index.ts";
import { collectSecrets } from "../../system/index.ts";
import type { Command } from "../command.ts";
import { EXIT } from "../exit-codes.ts";
import { parseWith } from "../parse-args.ts";

const ARGS = { options: { json: { type: "boolean" } }, positionals: false } as const;

export const doctorCommand: Command = {
  name: "doctor",
  args: ARGS,
  usage:
    "Usage: clawbox doctor [--json]\n  Exit 0 when nothing failed (warnings allowed), 1 otherwise.",
  async run(ctx, args) {
    const { values } = parseWith(args, ARGS);
    const results: CheckResult[] = [checkHome(ctx.home)];
    const configResult = checkConfig(() => ctx.config());
    results.push(configResult);
    results.push(...checkDatabase(() => ctx.store()));
    if (configResult.status !== "fail") {
      const { config } = ctx.config();
      results.push(...checkWorkspace(ctx.resolvedPaths().workspace));
      results.push(
        checkConsolePort({ host: config.server.host, port: config.server.port, home: ctx.home }),
      );
      const webhooks = checkWebhookToken(config.channels, config.server.token);
      if (webhooks) results.push(webhooks);
      results.push(...(await checkModels(config.models, ctx.paths.modelsDir)));
      results.push(checkModelPrivacy(config.models));
      try {
        const { channelDoctorChecks } = await import("../../channels/index.ts");
        results.push(
          ...channelDoctorChecks(ctx.store().db, config.channels, collectSecrets(config)),
        );
      } catch (error) {
        results.push({
          name: "channels",
          status: "fail",
          message: errorMessage(error),
        });
      }
      results.push(...(await mqttDoctorChecks(config.mqtt, ctx.home)));
      results.push(...(await checkBackups(config.backup, ctx.home)));
      if (config.homeAssistant) {
        const { homeAssistantDoctorChecks } = await import("../../mcp/index.ts");
        results.push(...(await homeAssistantDoctorChecks(config.homeAssistant)));
      }
      const { wyomingDoctorChecks } = await import("../../wyoming/index.ts");
      results.push(...wyomingDoctorChecks(config.wyoming, ctx.home));
      if (config.memory.enabled) {
        try {
          const memory = createMemory({
            config,
            store: ctx.store(),
            paths: ctx.resolvedPaths(),
            logger: ctx.logger(),
          });
          try {
            results.push(...(await memoryDoctorChecks(memory, config.context.bootstrapMaxChars)));
          } finally {
            await memory.close();
          }
        } catch (error) {
          results.push({
            name: "memory",
            status: "fail",
            message: errorMessage(error),
          });
        }
      }
    }
    const failed = results.filter((r) => r.status === "fail").length;
    if (values.json) {
      ctx.stdout.write(`${JSON.stringify({ ok: failed === 0, checks: results }, null, 2)}\n`);
    } else {
      for (const r of results) ctx.stdout.write(`${formatCheck(r)}\n`);
      const warned = results.filter((r) => r.status === "warn").length;
      ctx.stdout.write(
        `\n${results.length} checks: ${results.length - failed - warned} ok, ${warned} warn, ${failed} fail\n`,
      );
    }
    return failed === 0 ? EXIT.ok : EXIT.failed;
  },
};
