/**
 * The two WeCom channels' ids (in the outbox, the inbox and the status). A leaf, so the
 * registry entries and the lazily loaded adapters name them without importing each other.
 */
export const WECOM_APP_CHANNEL = "wecom-app";
export const WECOM_BOT_CHANNEL = "wecom-bot";
