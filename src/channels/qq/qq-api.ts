/**
 * The QQ OpenAPI calls the bot makes: the gateway URL, passive/active messages to a
 * user or group, and rich-media uploads. Requests carry `Authorization: QQBot <token>`;
 * a 401 forces one token refresh and one retry. Outcomes, not exceptions: a platform
 * dedupe of (msg_id, msg_seq) (code 40054005) means "already delivered".
 */

import { ClawboxError, errorMessage } from "../../errors/index.ts";
import { z } from "../../schema/index.ts";
import type { AccessTokenCache } from "../access-token-cache.ts";
import type { ChannelChatType, SendOutcome } from "../channel.ts";

/** "消息被去重，请检查请求msgseq": this (msg_id, msg_seq) was already sent. */
export const QQ_DUPLICATE_CODE = 40054005;

export interface QqApiResponse {
  status: number;
  body: unknown;
}

const errorBody = z.object({
  code: z.optional(z.number()),
  err_code: z.optional(z.number()),
  message: z.optional(z.string()),
});

export interface QqMessageBody {
  content?: string;
  msg_type: 0 | 2 | 7;
  markdown?: { content: string };
  media?: { file_info: string };
  msg_id?: string;
  msg_seq?: number;
}

export class QqApi {
  constructor(
    private readonly apiBase: string,
    private readonly tokens: AccessTokenCache,
  ) {}

  async request(method: "GET" | "POST", path: string, body?: unknown): Promise<QqApiResponse> {
    for (let attempt = 0; ; attempt++) {
      const token = await this.tokens.get();
      const response = await fetch(`${this.apiBase.replace(/\/$/, "")}${path}`, {
        method,
        headers: {
          authorization: `QQBot ${token}`,
          ...(body === undefined ? {} : { "content-type": "application/json" }),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        signal: AbortSignal.timeout(30_000),
      });
      const text = await response.text();
      if (response.status === 401 && attempt === 0) {
        this.tokens.invalidate();
        continue;
      }
      let parsed: unknown = text;
      try {
        parsed = text ? JSON.parse(text) : undefined;
      } catch {
        // keep the raw text for the error message
      }
      return { status: response.status, body: parsed };
    }
  }

  async gatewayUrl(): Promise<string> {
    const { status, body } = await this.request("GET", "/gateway");
    const parsed = z.object({ url: z.string().check(z.minLength(1)) }).safeParse(body);
    if (status !== 200 || !parsed.success)
      throw new ClawboxError("CHANNEL_API", `GET /gateway answered HTTP ${status} without a url`);
    return parsed.data.url;
  }

  /** POST a message to a user (`direct`) or a group, mapped to an outbox outcome. */
  async sendMessage(
    chatType: ChannelChatType,
    peerId: string,
    body: QqMessageBody,
  ): Promise<SendOutcome> {
    let response: QqApiResponse;
    try {
      response = await this.request("POST", `${peerPath(chatType, peerId)}/messages`, body);
    } catch (error) {
      return { kind: "retry", reason: errorMessage(error) };
    }
    return outcomeOf(response);
  }

  /** Uploads an image (by URL or base64 data) and returns its `file_info`. */
  async uploadImage(
    chatType: ChannelChatType,
    peerId: string,
    source: { url: string } | { file_data: string },
  ): Promise<string> {
    const { status, body } = await this.request("POST", `${peerPath(chatType, peerId)}/files`, {
      file_type: 1,
      srv_send_msg: false,
      ...source,
    });
    const parsed = z.object({ file_info: z.string().check(z.minLength(1)) }).safeParse(body);
    if (status >= 300 || !parsed.success)
      throw new ClawboxError(
        "CHANNEL_API",
        `image upload answered HTTP ${status}: ${describe(body)}`,
        { details: { status } },
      );
    return parsed.data.file_info;
  }
}

function peerPath(chatType: ChannelChatType, peerId: string): string {
  const id = encodeURIComponent(peerId);
  return chatType === "group" ? `/v2/groups/${id}` : `/v2/users/${id}`;
}

function describe(body: unknown): string {
  const parsed = errorBody.safeParse(body);
  if (parsed.success && (parsed.data.message || parsed.data.code))
    return `${parsed.data.code ?? parsed.data.err_code ?? ""} ${parsed.data.message ?? ""}`.trim();
  return typeof body === "string" ? body.slice(0, 200) : JSON.stringify(body ?? "").slice(0, 200);
}

export function outcomeOf(response: QqApiResponse): SendOutcome {
  const { status, body } = response;
  if (status >= 200 && status < 300) {
    const id = z.object({ id: z.string() }).safeParse(body);
    return { kind: "sent", ...(id.success ? { platformId: id.data.id } : {}) };
  }
  const error = errorBody.safeParse(body);
  const code = error.success ? (error.data.code ?? error.data.err_code) : undefined;
  if (code === QQ_DUPLICATE_CODE) return { kind: "duplicate" };
  const reason = `HTTP ${status}: ${describe(body)}`;
  if (status === 429 || status >= 500) return { kind: "retry", reason };
  return { kind: "failed", reason };
}
