/**
 * The console's Test button for a channel's settings, before or after they are saved:
 * QQ's token endpoint (and, for the WebSocket mode, its gateway address), WeCom's
 * `gettoken` for the self-built app, one subscribe on the bot's long connection. The
 * answer is one sentence in plain words saying what worked or what failed and what to
 * check; it never contains a secret. A WeCom bot that the running service is using is
 * not probed (WeCom would hand that bot's connection over to the probe); its live state
 * is reported instead.
 */
import type { QqChannelConfig, WecomAppConfig, WecomBotConfig } from "../config/index.ts";
import { errorMessage, isClawboxError } from "../errors/index.ts";
import { silentLogger } from "../system/index.ts";
import { createQqAccessToken } from "./qq/qq-access-token.ts";
import { QqApi } from "./qq/qq-api.ts";
import { createWeComAppApi } from "./wecom/app-api.ts";
import { createBotConnection } from "./wecom/bot-connection.ts";

export interface ProbeResult {
  ok: boolean;
  message: string;
}

const reasonOf = (error: unknown) => errorMessage(error);

export async function probeQq(qq: QqChannelConfig): Promise<ProbeResult> {
  const tokens = createQqAccessToken({
    tokenUrl: qq.tokenUrl,
    appId: qq.appId,
    clientSecret: qq.clientSecret,
  });
  try {
    await tokens.get();
  } catch (error) {
    if (isClawboxError(error, "PROVIDER_NETWORK"))
      return {
        ok: false,
        message: `Could not reach QQ's token endpoint ${qq.tokenUrl}: ${reasonOf(error.cause)}. Check the box's internet connection (or tokenUrl).`,
      };
    const platform = isClawboxError(error) ? error.details?.platform : undefined;
    const said =
      platform && typeof platform === "object" && "message" in platform
        ? ` (QQ said: ${String((platform as { message: unknown }).message)}${"code" in platform ? `, code ${String((platform as { code: unknown }).code)}` : ""})`
        : "";
    return {
      ok: false,
      message: `QQ refused the AppID or AppSecret${said}. Copy both again from q.qq.com → 开发设置 (the AppSecret is shown once; generate a new one if it is lost).`,
    };
  }
  if (qq.mode === "webhook")
    return {
      ok: true,
      message: `QQ accepted the AppID and AppSecret. In webhook mode QQ calls https://YOUR_DOMAIN/channels/qq/webhook: enter that address under 回调配置 on q.qq.com.`,
    };
  try {
    const url = await new QqApi(qq.apiBase, tokens).gatewayUrl();
    return {
      ok: true,
      message: `QQ accepted the AppID and AppSecret, and its gateway answered (${url}).`,
    };
  } catch (error) {
    return {
      ok: false,
      message: `QQ accepted the AppID and AppSecret, but ${qq.apiBase} did not give a gateway address: ${reasonOf(error)}. Check apiBase.`,
    };
  }
}

export async function probeWeComApp(app: WecomAppConfig): Promise<ProbeResult> {
  try {
    await createWeComAppApi(app).verify();
    return {
      ok: true,
      message:
        "WeCom accepted the CorpID and Secret. WeCom calls https://YOUR_DOMAIN/channels/wecom/app: enter it with the same Token and EncodingAESKey under 接收消息 → 设置API接收, and add the box's public IP as a trusted IP.",
    };
  } catch (error) {
    if (isClawboxError(error, "CHANNEL_NETWORK"))
      return {
        ok: false,
        message: `Could not reach WeCom's API at ${app.apiBase}: ${error.message}. Check the box's internet connection (or apiBase).`,
      };
    return {
      ok: false,
      message: `WeCom refused the CorpID or Secret: ${reasonOf(error)}. The CorpID is under 我的企业 → 企业信息, the Secret in the app's settings.`,
    };
  }
}

export async function probeWeComBot(
  bot: WecomBotConfig,
  running: { botId: string; state: string; reason?: string | undefined } | undefined,
  timeoutMs = 10_000,
): Promise<ProbeResult> {
  if (running && running.botId === bot.botId)
    return {
      ok: running.state === "connected",
      message:
        running.state === "connected"
          ? "The running service is connected with this bot now."
          : `The running service uses this bot and is ${running.state}${running.reason ? `: ${running.reason}` : ""}. (Not tested again: WeCom allows one connection per bot.)`,
    };
  return new Promise<ProbeResult>((resolve) => {
    let settled = false;
    const finish = (result: ProbeResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      connection.stop();
      resolve(result);
    };
    const connection = createBotConnection({
      wsUrl: bot.wsUrl,
      botId: bot.botId,
      secret: bot.secret,
      pingIntervalMs: bot.pingIntervalMs,
      logger: silentLogger,
      onMessage: () => {},
      onState: (state) => {
        if (state.kind === "connected")
          finish({
            ok: true,
            message: "WeCom accepted the bot ID and Secret (long connection subscribed).",
          });
        else if (state.kind === "auth-failed")
          finish({
            ok: false,
            message: `WeCom refused the bot ID or Secret: ${state.reason}. Copy both again from the bot's API settings (API 模式, 长连接).`,
          });
        else if (state.kind === "reconnecting")
          finish({
            ok: false,
            message: `Could not keep a connection to ${bot.wsUrl}: ${state.reason}. Check the box's internet connection (or wsUrl).`,
          });
      },
    });
    const timer = setTimeout(
      () =>
        finish({
          ok: false,
          message: `No answer from ${bot.wsUrl} within ${Math.round(timeoutMs / 1000)} s. Check the box's internet connection (or wsUrl).`,
        }),
      timeoutMs,
    );
    connection.start();
  });
}
