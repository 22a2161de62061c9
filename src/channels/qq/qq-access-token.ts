/**
 * The QQ app access token: fetched from `tokenUrl` with the app id and secret and kept
 * by the channels' one token cache (access-token-cache.ts: refresh rule, one fetch in
 * flight). `expires_in` may arrive as a number or a numeric string. A 401 from the API
 * calls `invalidate()` so the next request gets a fresh token.
 */

import { ClawboxError, errorMessage } from "../../errors/index.ts";
import { z } from "../../schema/index.ts";
import { type AccessTokenCache, createAccessTokenCache } from "../access-token-cache.ts";

const tokenResponse = z.object({
  access_token: z.string().check(z.minLength(1)),
  expires_in: z.union([
    z.number(),
    z.pipe(z.string().check(z.regex(/^\d+$/)), z.transform(Number)),
  ]),
});

export function createQqAccessToken(options: {
  tokenUrl: string;
  appId: string;
  clientSecret: string;
  now?: () => number;
}): AccessTokenCache {
  const fetchToken = async () => {
    let response: Response;
    try {
      response = await fetch(options.tokenUrl, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ appId: options.appId, clientSecret: options.clientSecret }),
        // The secret goes to tokenUrl and nowhere else: a 307/308 would re-send this body
        // to whatever address the answer names.
        redirect: "error",
        signal: AbortSignal.timeout(15_000),
      });
    } catch (error) {
      throw new ClawboxError(
        "PROVIDER_NETWORK",
        `QQ access token: cannot reach ${options.tokenUrl}: ${errorMessage(error)}`,
        { cause: error },
      );
    }
    const text = await response.text();
    let parsed: z.infer<typeof tokenResponse> | undefined;
    try {
      parsed = tokenResponse.parse(JSON.parse(text));
    } catch {
      parsed = undefined;
    }
    if (!response.ok || !parsed)
      throw new ClawboxError(
        "PROVIDER_AUTH",
        `QQ access token: HTTP ${response.status} from ${options.tokenUrl}: ${text.slice(0, 200).replace(/"access_token"\s*:\s*"[^"]*"/, '"access_token":"[redacted]"')}`,
        {
          hint: "check channels.qq.appId and channels.qq.clientSecret",
          details: { status: response.status, platform: platformError(text) },
        },
      );
    return { token: parsed.access_token, expiresIn: parsed.expires_in };
  };
  return createAccessTokenCache(fetchToken, options.now);
}

/** QQ's own `{code, message}` from an error answer, when it sent one. */
function platformError(text: string): { code?: unknown; message?: unknown } | undefined {
  try {
    const body = JSON.parse(text) as Record<string, unknown>;
    return { code: body.code, message: body.message };
  } catch {
    return undefined;
  }
}
