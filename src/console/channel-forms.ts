/**
 * The Channels page's forms: which config keys each channel's form edits, how the page
 * draws them, and which of them are secrets. Secrets are write-only: the page is told
 * only whether one is set, and an empty secret field leaves the stored value alone. The
 * key names are the config file's (docs/CHANNELS.md), so the forms and the file agree.
 */

export type FieldKind = "text" | "secret" | "number" | "select" | "bool" | "list";

export interface FormField {
  key: string;
  label: string;
  kind: FieldKind;
  options?: readonly string[];
  /** Needed for the section to be valid at all. */
  required?: boolean;
  /** Shown under "More settings". */
  advanced?: boolean;
  /** One line of help under the field. */
  help?: string;
  placeholder?: string;
}

export interface ChannelForm {
  /** The form's id in routes: `qq`, `wecom-app`, `wecom-bot`, `mqtt`, `home-assistant`, `wyoming`. */
  id: "qq" | "wecom-app" | "wecom-bot" | "mqtt" | "home-assistant" | "wyoming";
  title: string;
  /** Where the section is in the config file. */
  path: readonly string[];
  intro: string;
  fields: readonly FormField[];
  /**
   * Where the form's secrets are sent: the fields naming the place (`fields`) and the
   * secrets that go there (`secrets`). A stored secret goes only to the saved place; a
   * Test or Save that changes one of `fields` must carry `secrets` typed again
   * (secret-destination.ts).
   */
  secretsGoTo: { fields: readonly string[]; secrets: readonly string[] };
}

const enabled: FormField = {
  key: "enabled",
  label: "Enabled",
  kind: "bool",
  help: "Off keeps the settings but does not connect.",
};
const dmPolicy: FormField = {
  key: "dmPolicy",
  label: "Who may chat directly",
  kind: "select",
  options: ["", "open", "allowlist", "pairing"],
  help: "open: anyone; allowlist: only owners and the list below; pairing: the same, and anyone else gets a pairing code. Empty: allowlist when the list has anyone, else open.",
};
const allowFrom: FormField = {
  key: "allowFrom",
  label: "Allowed senders",
  kind: "list",
  advanced: true,
  help: "Comma-separated ids (or group:<id>); empty: anyone.",
};
const groupPolicy: FormField = {
  key: "groupPolicy",
  label: "Group chats",
  kind: "select",
  options: ["mention", "disabled"],
  advanced: true,
  help: "mention: answer when @-mentioned; disabled: ignore groups.",
};

export const CHANNEL_FORMS: readonly ChannelForm[] = [
  {
    id: "qq",
    title: "QQ",
    path: ["channels", "qq"],
    intro:
      "The official QQ bot (q.qq.com → your bot → 开发设置): its AppID and AppSecret. WebSocket needs no public address.",
    // The AppSecret goes to the token URL; the access token it buys goes to the API base.
    secretsGoTo: { fields: ["tokenUrl", "apiBase"], secrets: ["clientSecret"] },
    fields: [
      { key: "appId", label: "AppID", kind: "text", required: true },
      { key: "clientSecret", label: "AppSecret", kind: "secret", required: true },
      {
        key: "mode",
        label: "Connection",
        kind: "select",
        options: ["websocket", "webhook"],
        help: "websocket: the box connects out; webhook: QQ calls https://YOUR_DOMAIN/channels/qq/webhook.",
      },
      dmPolicy,
      enabled,
      allowFrom,
      groupPolicy,
      { key: "markdown", label: "Markdown replies", kind: "bool", advanced: true },
      {
        key: "apiBase",
        label: "API base",
        kind: "text",
        advanced: true,
        placeholder: "https://api.sgroup.qq.com",
      },
      {
        key: "tokenUrl",
        label: "Token URL",
        kind: "text",
        advanced: true,
        placeholder: "https://bots.qq.com/app/getAppAccessToken",
      },
    ],
  },
  {
    id: "wecom-bot",
    title: "WeCom intelligent bot",
    path: ["channels", "wecom", "bot"],
    intro:
      "企业微信 → 应用管理 → 智能机器人, API mode with the long connection: no public address needed. Its Bot ID and Secret.",
    secretsGoTo: { fields: ["wsUrl"], secrets: ["secret"] },
    fields: [
      { key: "botId", label: "Bot ID", kind: "text", required: true },
      { key: "secret", label: "Secret", kind: "secret", required: true },
      dmPolicy,
      enabled,
      allowFrom,
      groupPolicy,
      {
        key: "wsUrl",
        label: "Long-connection URL",
        kind: "text",
        advanced: true,
        placeholder: "wss://openws.work.weixin.qq.com",
      },
    ],
  },
  {
    id: "wecom-app",
    title: "WeCom self-built app",
    path: ["channels", "wecom", "app"],
    intro:
      "企业微信 → 应用管理 → 自建: needs https://YOUR_DOMAIN/channels/wecom/app to reach the box, and the box's public IP as a trusted IP.",
    // The Secret goes to gettoken; the Token and EncodingAESKey only check WeCom's calls.
    secretsGoTo: { fields: ["apiBase"], secrets: ["corpSecret"] },
    fields: [
      { key: "corpId", label: "CorpID", kind: "text", required: true },
      { key: "corpSecret", label: "Secret", kind: "secret", required: true },
      { key: "agentId", label: "AgentId", kind: "number", required: true },
      { key: "token", label: "Callback Token", kind: "secret", required: true },
      {
        key: "encodingAESKey",
        label: "EncodingAESKey",
        kind: "secret",
        required: true,
        help: "The 43-character key from 设置API接收.",
      },
      dmPolicy,
      enabled,
      allowFrom,
      { key: "markdown", label: "Markdown replies", kind: "bool", advanced: true },
      {
        key: "apiBase",
        label: "API base",
        kind: "text",
        advanced: true,
        placeholder: "https://qyapi.weixin.qq.com",
      },
    ],
  },
  {
    id: "mqtt",
    title: "MQTT (Home Assistant)",
    path: ["mqtt"],
    intro:
      "The broker Home Assistant uses (e.g. the Mosquitto add-on): the box appears there as a device.",
    // Who gets the password: the broker at the URL, as proven by the certificate checks.
    secretsGoTo: { fields: ["url", "ca", "rejectUnauthorized"], secrets: ["password"] },
    fields: [
      { key: "enabled", label: "Enabled", kind: "bool" },
      {
        key: "url",
        label: "Broker URL",
        kind: "text",
        placeholder: "mqtt://homeassistant.local:1883",
      },
      { key: "username", label: "User name", kind: "text" },
      { key: "password", label: "Password", kind: "secret" },
      {
        key: "discoveryPrefix",
        label: "Discovery prefix",
        kind: "text",
        advanced: true,
        placeholder: "homeassistant",
      },
      { key: "nodeId", label: "Node id", kind: "text", advanced: true },
      { key: "ca", label: "CA file (mqtts://)", kind: "text", advanced: true },
      {
        key: "rejectUnauthorized",
        label: "Verify the broker's certificate",
        kind: "bool",
        advanced: true,
      },
    ],
  },
];

/** A field's value as the page may see it: secrets only as set or not. */
export function shownValue(field: FormField, value: unknown): unknown {
  if (field.kind === "secret") return { set: typeof value === "string" && value.length > 0 };
  return value;
}

/**
 * A config error about one of a form's fields, said as the form says it: "AppID:
 * required", not "/root/.clawbox/clawbox.json: channels.qq.appId: Invalid input: expected
 * string, received undefined". The person typed in a form, so the file and the key path
 * mean nothing to them; the field's label and what to type do.
 */
export function fieldError(
  form: ChannelForm,
  message: string,
): { field: string; message: string } | undefined {
  for (const field of form.fields) {
    const path = `${[...form.path, field.key].join(".")}: `;
    const at = message.indexOf(path);
    if (at < 0) continue;
    const rest = message
      .slice(at + path.length)
      .replace(/ \(set it to [^)]*\)$/, "")
      .replace(/^Invalid input: /, "");
    const plain = /received undefined|is missing|required/i.test(rest)
      ? "required"
      : field.placeholder
        ? `${rest}; e.g. ${field.placeholder}`
        : rest;
    return { field: field.key, message: `${field.label}: ${plain}` };
  }
  return undefined;
}
