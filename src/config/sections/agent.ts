/** The agent: identity, owners, concurrency, loop limits and the agent's tool filter. */
import * as z from "zod";

export const agentSection = z
  .object({
    id: z
      .string()
      .regex(/^[a-z0-9_-]+$/)
      .default("main"),
    /** Sender ids (e.g. "qq:OPENID", "cli") allowed owner-only tools such as exec. */
    owners: z.array(z.string().min(1)).default(["cli"]),
    maxConcurrent: z.number().int().min(1).max(64).default(4),
    /** Collapse all direct chats into one main session. */
    directSessionMode: z.enum(["per-peer", "main"]).default("per-peer"),
    timezone: z.string().optional(),
    /** Model calls per run before the loop stops asking for more tool calls. */
    maxIterations: z.number().int().min(1).max(200).default(12),
    thinkingLevel: z.enum(["off", "minimal", "low", "medium", "high"]).default("off"),
    /** The agent stage of the tool policy pipeline. */
    tools: z
      .object({
        allow: z.array(z.string().min(1)).optional(),
        deny: z.array(z.string().min(1)).optional(),
      })
      .default({}),
  })
  .default({
    id: "main",
    owners: ["cli"],
    maxConcurrent: 4,
    directSessionMode: "per-peer",
    maxIterations: 12,
    thinkingLevel: "off",
    tools: {},
  });

export type AgentConfig = z.infer<typeof agentSection>;
