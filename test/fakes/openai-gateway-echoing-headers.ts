/**
 * A fake OpenAI-compatible gateway (the kind of proxy a custom `headers` entry is
 * configured for) whose HTTP 400 error quotes the request it refused: its custom
 * `X-Custom` header, the `Authorization` header and an upstream URL with an
 * `?access_token=`. OpenAI's error shape (`{"error":{"message","type","param","code"}}`);
 * real gateways echo request details into `error.message` this way. Only a request whose
 * messages contain `trigger` is refused; anything else gets "ok".
 */
import { openaiStatus, openaiText, type ScriptedServer, startFakeOpenAI } from "./openai-server.ts";

export const ECHO_TRIGGER = "ECHOERR400";

export function startGatewayEchoingHeaders(
  options: { upstreamToken: string; trigger?: string } = { upstreamToken: "upstream-0000" },
): Promise<ScriptedServer> {
  const trigger = options.trigger ?? ECHO_TRIGGER;
  return startFakeOpenAI((request) => {
    if (!JSON.stringify(request.body.messages ?? []).includes(trigger)) return openaiText("ok");
    const custom = request.headers["x-custom"] ?? "";
    const auth = request.headers.authorization ?? "";
    return openaiStatus(
      400,
      `gateway refused the request (upstream https://upstream.example/v1/chat?access_token=${options.upstreamToken}): ${auth} hdr=${custom}`,
      { code: "invalid_request" },
    );
  });
}
