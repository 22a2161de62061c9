/** The agent: identity, owners, concurrency, loop limits and the agent's tool filter. */
import { z } from "../../schema/index.ts";

const nonEmpty = z.string().check(z.minLength(1));

export const agentSection = z._default(
  z.object({
    id: z._default(z.string().check(z.regex(/^[a-z0-9_-]+$/)), "main"),
    /** Sender ids (e.g. "qq:OPENID", "cli") allowed owner-only tools such as exec. */
    owners: z._default(z.array(nonEmpty), ["cli"]),
    maxConcurrent: z._default(z.number().check(z.int(), z.minimum(1), z.maximum(64)), 4),
    /** Collapse all direct chats into one main session. */
    directSessionMode: z._default(z.enum(["per-peer", "main"]), "per-peer"),
    timezone: z.optional(z.string()),
    /** Model calls per run before the loop stops asking for more tool calls. */
    maxIterations: z._default(z.number().check(z.int(), z.minimum(1), z.maximum(200)), 12),
    thinkingLevel: z._default(z.enum(["off", "minimal", "low", "medium", "high"]), "off"),
    /** The agent stage of the tool policy pipeline. */
    tools: z._default(
      z.object({
        allow: z.optional(z.array(nonEmpty)),
        deny: z.optional(z.array(nonEmpty)),
      }),
      {},
    ),
  }),
  {
    id: "main",
    owners: ["cli"],
    maxConcurrent: 4,
    directSessionMode: "per-peer",
    maxIterations: 12,
    thinkingLevel: "off",
    tools: {},
  },
);

export type AgentConfig = z.infer<typeof agentSection>;
