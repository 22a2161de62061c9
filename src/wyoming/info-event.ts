/**
 * The answer to `describe` (OHF-Voice/wyoming `wyoming/info.py Info.event`): all seven
 * program lists, the box in `handle`. Every Artifact field Home Assistant's parser
 * requires is present (`name`, `attribution` {name, url}, `installed`), because a
 * missing one raises in HA's config flow (`DataClassJsonMixin.from_dict`). The model's
 * `languages` list is empty: HA's conversation entity then supports every language
 * (`MATCH_ALL`, homeassistant/components/wyoming/conversation.py), and the box answers
 * in the language of each transcript. Streaming is not advertised: HA's Wyoming
 * conversation entity skips `handled-chunk` events and speaks only `handled`.
 */
import { hostname } from "node:os";
import type { WyomingEvent } from "./wyoming-event.ts";

export interface InfoFacts {
  /** The name HA gives the conversation agent (the box's announced name). */
  name: string;
  version: string;
}

/** `url` is required by HA's parser; the box has no public page to name. */
const ATTRIBUTION = { name: "clawbox", url: "" };

export function infoEvent(facts: InfoFacts): WyomingEvent {
  const description = "clawbox: the home assistant box's agent (local model, memory, tools)";
  return {
    type: "info",
    data: {
      asr: [],
      tts: [],
      handle: [
        {
          name: facts.name,
          attribution: ATTRIBUTION,
          installed: true,
          description,
          version: facts.version,
          models: [
            {
              name: "clawbox-agent",
              attribution: ATTRIBUTION,
              installed: true,
              description,
              version: facts.version,
              languages: [],
            },
          ],
          supports_handled_streaming: false,
          supports_home_control: false,
        },
      ],
      intent: [],
      wake: [],
      mic: [],
      snd: [],
    },
  };
}

/** The name Home Assistant shows for the box: "clawbox <hostname>". */
export function voiceAgentName(): string {
  const host = hostname().split(".")[0] || "box";
  return `clawbox ${host}`.slice(0, 63);
}
