/** Placeholder replaced by the QQ adapter in the next commit. */
import { ClawboxError } from "../../errors/index.ts";
import type { ChannelAdapter } from "../channel.ts";
import type { AdapterDeps } from "../channel-registry.ts";

export function createQqChannel(_deps: AdapterDeps): ChannelAdapter {
  throw new ClawboxError("CONFIG_INVALID", "the QQ adapter is not built yet");
}
