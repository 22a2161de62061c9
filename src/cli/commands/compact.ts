/**
 * `clawbox compact --session KEY`: summarize a session's older turns now with the
 * primary model (the same as /compact in chat). The memory flush turn needs the agent
 * loop, so it runs only from chat; here the summary is written directly, while this
 * process holds the session (a turn of `clawbox run` in it finishes first).
 */

import { createSessionGate } from "../../agent/index.ts";
import { createContextEngine } from "../../context/index.ts";
import { ClawboxError } from "../../errors/index.ts";
import { createProvider, primaryModel } from "../../providers/index.ts";
import type { Command } from "../command.ts";
import { EXIT } from "../exit-codes.ts";
import { requireSession } from "../find-session.ts";
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
    "Usage: clawbox compact --session NAME [--instructions TEXT] [--json]",
    "  --session NAME       a short name, key or id, as chat takes it",
    "  --instructions TEXT  what the summary should focus on",
  ].join("\n"),
  async run(ctx, args) {
    const { values } = parseWith(args, ARGS);
    if (!values.session) throw new ClawboxError("CLI_USAGE", "--session NAME is required");
    const { config } = ctx.config();
    const store = ctx.store();
    const session = requireSession(ctx, values.session);
    const model = primaryModel(config.models);
    const providerConfig = config.models.providers[model.providerId];
    if (!providerConfig)
      throw new ClawboxError("CONFIG_INVALID", `models.providers.${model.providerId} is missing`);
    const provider = createProvider(model.providerId, providerConfig, {
      logger: ctx.logger(),
      kvCacheDir: ctx.resolvedPaths().kvCacheDir,
    });
    const engine = createContextEngine({
      config,
      store,
      paths: ctx.resolvedPaths(),
      logger: ctx.logger(),
      watch: false,
    });
    const gate = createSessionGate({
      store,
      maxConcurrent: config.agent.maxConcurrent,
      logger: ctx.logger(),
    });
    try {
      const result = await gate.runExclusive(session.sessionKey, async () =>
        engine.compact({
          // Read again: a turn may have finished while this waited.
          session: store.sessions.require(session.sessionId),
          provider,
          reason: "manual",
          ...(values.instructions ? { instructions: values.instructions } : {}),
          onEvent: (event) =>
            ctx.stderr.write(
              `${event.type}${event.type === "compaction_end" && event.level ? ` (level ${event.level})` : ""}\n`,
            ),
        }),
      );
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
