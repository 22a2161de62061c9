/**
 * Steering: a message sent while its session is busy can join the running run. The
 * run drains the inbox at each turn boundary; the messages it took resolve with the
 * run's result. Whatever arrives after the run's last look is handed back on close
 * so the agent runs it as a follow-up: no message is ever dropped.
 */

import { ClawboxError } from "../errors/index.ts";
import type { ChatRequest, ChatResult } from "./chat-request.ts";

interface Offer {
  request: ChatRequest;
  resolve: (result: ChatResult | Promise<ChatResult>) => void;
}

export interface SteeringInbox {
  offer(request: ChatRequest): Promise<ChatResult>;
  /** Messages to inject now; the run owns their answers from here on. */
  drain(): ChatRequest[];
  /** Ends the inbox: resolves taken offers with `result`, returns the ones never taken. */
  close(result: ChatResult): Offer[];
}

export type PendingOffer = Offer;

export function createSteeringInbox(): SteeringInbox {
  const waiting: Offer[] = [];
  const taken: Offer[] = [];
  let closed = false;
  return {
    offer(request) {
      return new Promise((resolve) => {
        if (closed) throw new ClawboxError("INTERNAL", "steering inbox closed");
        waiting.push({ request, resolve });
      });
    },
    drain() {
      const now = waiting.splice(0);
      taken.push(...now);
      return now.map((offer) => offer.request);
    },
    close(result) {
      closed = true;
      for (const offer of taken) offer.resolve(result);
      return waiting.splice(0);
    },
  };
}
