/**
 * The pending user message within the room the fixed parts leave: the user's own text
 * and the per-turn facts always go; a bootstrap-pending block (BOOTSTRAP.md on a local
 * model's first run) gets at most a quarter of the room and is cut head/tail, or
 * replaced by a one-line note, when it would take more. Only the user's own message can then overflow the window — never our
 * additions to it.
 */
import { ClawboxError } from "../errors/index.ts";
import type { UserMessage } from "../messages/index.ts";
import { truncateBootstrap } from "../workspace/index.ts";
import { BOOTSTRAP_PENDING_NOTE, bootstrapUserBlock } from "./bootstrap-destination.ts";
import { decoratePending } from "./pending-message.ts";

export interface PendingFit {
  message: UserMessage;
  tokens: number;
  steps: string[];
}

export interface PendingInput {
  pending: UserMessage;
  /** Per-turn lead text (the turn facts stamp), after the bootstrap block. */
  lead: readonly string[];
  /** Full BOOTSTRAP.md text when it goes in the user message. */
  bootstrapText?: string;
  /** Block already rendered (e.g. the workspace-unreachable note), when no file text. */
  block?: string;
  room: number;
  countMessage(message: UserMessage): Promise<number>;
}

const BLOCK_SHARE = 0.25;
const NOTE_ONLY = `${BOOTSTRAP_PENDING_NOTE.split(". ")[0]}. BOOTSTRAP.md did not fit this model's context; read it with the read tool.`;

export async function fitPending(input: PendingInput): Promise<PendingFit> {
  const build = async (block: string | undefined) => {
    const message = decoratePending(input.pending, block ? [block, ...input.lead] : input.lead);
    return { message, tokens: await input.countMessage(message) };
  };
  const block =
    input.bootstrapText !== undefined ? bootstrapUserBlock(input.bootstrapText) : input.block;
  const full = await build(block);
  if (input.bootstrapText === undefined) return { ...full, steps: [] };
  const bare = await build(undefined);
  const blockTokens = Math.max(1, full.tokens - bare.tokens);
  // The block is stored with the message and replayed as history on the next turns:
  // it may take at most a quarter of the room, so the first exchange stays in context.
  const blockRoom = Math.min(input.room - bare.tokens, Math.floor(input.room * BLOCK_SHARE));
  if (blockTokens <= blockRoom) return { ...full, steps: [] };
  const text = input.bootstrapText;
  let fitRoom = blockRoom;
  for (let attempt = 0; attempt < 3 && fitRoom > 0; attempt++) {
    const chars = Math.floor((text.length * fitRoom) / blockTokens) - 200 * (attempt + 1);
    if (chars < 200) break;
    const cut = truncateBootstrap("BOOTSTRAP.md", text, chars);
    const tried = await build(bootstrapUserBlock(cut.text));
    if (tried.tokens - bare.tokens <= blockRoom) {
      return { ...tried, steps: [`bootstrap pending block cut to ${cut.text.length} chars`] };
    }
    fitRoom -= tried.tokens - bare.tokens - blockRoom;
  }
  const noted = await build(NOTE_ONLY);
  if (noted.tokens <= input.room) {
    return { ...noted, steps: ["bootstrap pending block replaced by a note"] };
  }
  return { ...bare, steps: ["bootstrap pending block left out"] };
}

/** The user's own message does not fit beside the system prompt and the reply: say so in numbers. */
export function messageTooLongError(
  model: { providerId: string; contextWindow: number },
  pendingTokens: number,
  room: number,
): ClawboxError {
  return new ClawboxError(
    "CONTEXT_OVERFLOW",
    `the new message is ${pendingTokens} tokens; ${model.providerId}'s ${model.contextWindow}-token window has room for ${room} beside the system prompt and reply`,
    {
      hint: "shorten the message or send it in parts",
      details: {
        messageTooLong: true,
        messageTokens: pendingTokens,
        limitTokens: room,
        contextWindow: model.contextWindow,
      },
    },
  );
}
