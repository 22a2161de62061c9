/** The agent: identity, owners, concurrency and tool policy. */
import * as z from "zod";

export const agentSection = z
  .object({
    id: z.string().regex(/^[a-z0-9_-]+$/).default("main"),
    /** Sender ids (e.g. "qq:OPENID", "cli") allowed owner-only tools such as exec. */
    owners: z.array(z.string().min(1)).default(["cli"]),
    maxConcurrent: z.number().int().min(1).max(64).default(4),
    /** Collapse all direct chats into one main session. */
    directSessionMode: z.enum(["per-peer", "main"]).default("per-peer"),
    timezone: z.string().optional(),
  })
  .default({ id: "main", owners: ["cli"], maxConcurrent: 4, directSessionMode: "per-peer" });

export type AgentConfig = z.infer<typeof agentSection>;
