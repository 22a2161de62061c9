/**
 * `clawbox compact --session KEY`: summarize a session's older turns now with the
 * primary model (the same as /compact in chat). The memory flush turn needs the agent
 * loop, so it runs only from chat; here the summary is written directly.
 */

import { createContextEngine } from "../../context/index.ts";
import { ClawboxError } from "../../errors/index.ts";
import { createProvider, primaryModel } from "../../providers/index.ts";
import type { Command } from "../command.ts";
import { EXIT } from "../exit-codes.ts";
import { parseWith } from "../parse-args.ts";

const ARGS = {
  options: {
    session: { type: "string" },
    instructions: { type: "string" },
    json: { type: "boolean" },
  },
  positionals: false,
} as const;

export const compactCommand: Command = {
  name: "compact",
  args: ARGS,
  usage: [
    "Usage: clawbox compact --session KEY [--instructions TEXT] [--json]",
    "  --session KEY        session key or id",
    "  --instructions TEXT  what the summary should focus on",
  ].join("\n"),
  async run(ctx, args) {
    const { values } = parseWith(args, ARGS);
    if (!values.session) throw new ClawboxError("CLI_USAGE", "--session KEY is required");
    const { config } = ctx.config();
    const store = ctx.store();
    const session = store.sessions.find(values.session);
    if (!session) {
      throw new ClawboxError("SESSION_NOT_FOUND", `no session with id or key ${values.session}`, {
        hint: 'list sessions with "clawbox sessions list"',
      });
    }
    const model = primaryModel(config);
    const providerConfig = config.models.providers[model.providerId];
    if (!providerConfig)
      throw new ClawboxError("CONFIG_INVALID", `models.providers.${model.providerId} is missing`);
    const provider = createProvider(model.providerId, providerConfig, { logger: ctx.logger() });
    const engine = createContextEngine({
      config,
      store,
      paths: ctx.resolvedPaths(),
      logger: ctx.logger(),
      watch: false,
    });
    try {
      const result = await engine.compact({
        session,
        provider,
        reason: "manual",
        ...(values.instructions ? { instructions: values.instructions } : {}),
        onEvent: (event) =>
          ctx.stderr.write(
            `${event.type}${event.type === "compaction_end" && event.level ? ` (level ${event.level})` : ""}\n`,
          ),
      });
      if (values.json) ctx.stdout.write(`${JSON.stringify(result)}\n`);
      else if (result.compacted) {
        ctx.stdout.write(
          `compacted ${session.sessionKey}: ~${result.tokensBefore} → ~${result.tokensAfter} tokens (entry ${result.entryId}, level ${result.level})\n`,
        );
      } else ctx.stdout.write(`not compacted: ${result.reason ?? "nothing to do"}\n`);
      return EXIT.ok;
    } finally {
      engine.dispose?.();
      await provider.dispose?.();
    }
  },
};
