/**
 * The self-built app's server API (`{apiBase}/cgi-bin/...`): gettoken, message/send
 * and media/get. A call answered with 42001 (token expired) or 40014 (token invalid)
 * refreshes the token once and retries once. Errors never carry the secret or the
 * token (both travel in the query string, so URLs are never put in messages).
 */

import { ClawboxError } from "../../errors/index.ts";
import { z } from "../../schema/index.ts";
import { clockHint } from "../../system/index.ts";
import { type AccessTokenCache, createAccessTokenCache } from "../access-token-cache.ts";

export interface WeComAppApiOptions {
  apiBase: string;
  corpId: string;
  corpSecret: string;
  agentId: number;
  fetch?: typeof fetch;
}

export interface WeComAppApi {
  /**
   * Sends one text or markdown message to a user; resolves with the platform's msgid.
   * `duplicateCheckSeconds`: the platform drops the same request repeated inside that
   * many seconds (`enable_duplicate_check`).
   */
  send(
    toUser: string,
    format: "text" | "markdown",
    content: string,
    options?: { duplicateCheckSeconds?: number },
  ): Promise<string>;
  /** Downloads a temporary media file (image, voice) by MediaId. */
  media(mediaId: string): Promise<{ bytes: Uint8Array; contentType: string }>;
  /** Fetches an access token (checks the CorpID and Secret); throws CHANNEL_* when refused. */
  verify(): Promise<void>;
}

const TOKEN_ERRORS = new Set([42001, 40014]);
const REQUEST_TIMEOUT_MS = 15_000;

const apiReply = z.looseObject({
  errcode: z.optional(z.number()),
  errmsg: z.optional(z.string()),
});
const tokenReply = z.extend(apiReply, {
  access_token: z.optional(z.string().check(z.minLength(1))),
  expires_in: z.optional(z.number()),
});
const sendReply = z.extend(apiReply, { msgid: z.optional(z.string()) });

export function createWeComAppApi(options: WeComAppApiOptions): WeComAppApi {
  const doFetch = options.fetch ?? fetch;
  const base = options.apiBase.replace(/\/+$/, "");
  const tokens: AccessTokenCache = createAccessTokenCache(async () => {
    const url = `${base}/cgi-bin/gettoken?corpid=${encodeURIComponent(options.corpId)}&corpsecret=${encodeURIComponent(options.corpSecret)}`;
    const reply = tokenReply.parse(await getJson(doFetch, url, "gettoken"));
    if (reply.errcode || !reply.access_token) {
      throw new ClawboxError(
        "CHANNEL_AUTH",
        `WeCom gettoken refused: ${reply.errmsg ?? "no token"} (errcode ${reply.errcode ?? "none"})`,
        { hint: "check channels.wecom.app.corpId and corpSecret" },
      );
    }
    return { token: reply.access_token, expiresIn: reply.expires_in ?? 7200 };
  });

  /** Runs `call` with a token; on 42001/40014 refreshes once and runs it again. */
  async function withToken<T extends { errcode?: number | undefined }>(
    call: (token: string) => Promise<T>,
  ): Promise<T> {
    const token = await tokens.get();
    const first = await call(token);
    if (!first.errcode || !TOKEN_ERRORS.has(first.errcode)) return first;
    tokens.invalidate(token);
    return call(await tokens.get());
  }

  return {
    async verify() {
      await tokens.get();
    },
    async send(toUser, format, content, sendOptions = {}) {
      const check = sendOptions.duplicateCheckSeconds;
      const body = {
        touser: toUser,
        msgtype: format,
        agentid: options.agentId,
        [format]: { content },
        ...(check ? { enable_duplicate_check: 1, duplicate_check_interval: check } : {}),
      };
      const reply = await withToken(async (token) =>
        sendReply.parse(
          await postJson(doFetch, `${base}/cgi-bin/message/send?access_token=${token}`, body),
        ),
      );
      if (reply.errcode) {
        throw new ClawboxError(
          "CHANNEL_API",
          `WeCom message/send failed: ${reply.errmsg ?? ""} (errcode ${reply.errcode})`,
          { details: { errcode: reply.errcode } },
        );
      }
      return reply.msgid ?? "";
    },
    async media(mediaId) {
      const result = await withToken(async (token) => {
        const response = await request(
          doFetch,
          `${base}/cgi-bin/media/get?access_token=${token}&media_id=${encodeURIComponent(mediaId)}`,
          { method: "GET" },
          "media/get",
        );
        const contentType = response.headers.get("content-type") ?? "";
        if (/json|text\/plain/.test(contentType)) {
          return apiReply.parse(await response.json());
        }
        return { bytes: new Uint8Array(await response.arrayBuffer()), contentType };
      });
      if (!("bytes" in result) || !(result.bytes instanceof Uint8Array)) {
        throw new ClawboxError(
          "CHANNEL_API",
          `WeCom media/get failed: ${result.errmsg ?? ""} (errcode ${result.errcode ?? "none"})`,
        );
      }
      return { bytes: result.bytes, contentType: String(result.contentType) };
    },
  };
}

async function request(
  doFetch: typeof fetch,
  url: string,
  init: RequestInit,
  what: string,
): Promise<Response> {
  let response: Response;
  try {
    // Secrets ride in these requests (corpsecret, access_token, message bodies): they go
    // to apiBase only, never to an address a redirect names.
    response = await doFetch(url, {
      ...init,
      redirect: "error",
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    });
  } catch (error) {
    const clock = clockHint(error);
    throw new ClawboxError(
      "CHANNEL_NETWORK",
      `WeCom ${what}: cannot reach the API${clock ? ` (${clock})` : ""}`,
      {
        hint: "check the network and channels.wecom.app.apiBase",
        details: { reason: error instanceof Error ? error.name : "unknown" },
      },
    );
  }
  if (!response.ok) {
    throw new ClawboxError("CHANNEL_API", `WeCom ${what}: HTTP ${response.status}`);
  }
  return response;
}

async function getJson(doFetch: typeof fetch, url: string, what: string): Promise<unknown> {
  return (await request(doFetch, url, { method: "GET" }, what)).json();
}

async function postJson(doFetch: typeof fetch, url: string, body: unknown): Promise<unknown> {
  const response = await request(
    doFetch,
    url,
    {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    },
    "message/send",
  );
  return response.json();
}
