/**
 * WeCom (企业微信): the self-built app's callback channel and the intelligent bot's
 * long-connection channel, both on the channel framework. Only the registry entries
 * are public; the adapters load lazily after READY.
 */
export { WECOM_APP_CHANNEL, WECOM_BOT_CHANNEL } from "./wecom-channel-ids.ts";
export { wecomAppDefinition, wecomBotDefinition } from "./wecom-definitions.ts";
