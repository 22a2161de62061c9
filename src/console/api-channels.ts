/**
 * The Channels page: QQ, the two WeCom channels, MQTT and Home Assistant set up from forms. GET shows
 * each form with the values of the config file (secrets only as "set"), the live state
 * of each channel (the `clawbox channels status` data) and of the MQTT bridge. POST
 * writes the fields the person changed into the config file (validated as a whole
 * config first, comments kept, atomic) and applies them at once: the channel restarts
 * with them, no service restart. Test tries the settings as they stand in the form
 * (unsaved changes included, a blank secret meaning the stored one) against the
 * platform and answers in plain words. A Test or Save that changes where a secret is sent
 * needs that secret typed again (secret-destination.ts). A Test answer passes through the
 * logger's redaction, so a platform that echoes the credentials cannot show them.
 */
import type { Hono } from "hono";
import {
  type ProbeResult,
  probeQq,
  probeWeComApp,
  probeWeComBot,
  readChannelStatus,
} from "../channels/index.ts";
import {
  type ClawboxConfig,
  type ConfigEdit,
  editConfigFile,
  loadConfig,
  previewConfigEdit,
} from "../config/index.ts";
import { toClawboxError } from "../errors/index.ts";
import { probeHomeAssistant } from "../mcp/index.ts";
import { probeBroker } from "../mqtt/index.ts";
import { z } from "../schema/index.ts";
import { collectSecrets } from "../system/index.ts";
import {
  CHANNEL_FORMS,
  type ChannelForm,
  type FormField,
  fieldError,
  shownValue,
} from "./channel-forms.ts";
import type { ConsoleDeps } from "./console-deps.ts";
import type { ConsoleEnv } from "./console-env.ts";
import { HOME_ASSISTANT_FORM } from "./home-assistant-form.ts";
import { apiError, readBody } from "./json-body.ts";
import { storedSecretRefusal } from "./secret-destination.ts";
import { probeWyoming, WYOMING_FORM, wyomingFormStatus } from "./wyoming-form.ts";

const valuesBody = z.object({
  values: z.record(
    z.string().check(z.maxLength(64)),
    z.union([
      z.string().check(z.maxLength(2000)),
      z.number(),
      z.boolean(),
      z.array(z.string().check(z.maxLength(200))).check(z.maxLength(200)),
    ]),
  ),
});

type FieldValue = z.infer<typeof valuesBody>["values"][string];

/** The page's sections: the chat channels' and MQTT's, Home Assistant, then its voice rooms. */
const FORMS: readonly ChannelForm[] = [...CHANNEL_FORMS, HOME_ASSISTANT_FORM, WYOMING_FORM];
const formOf = (id: string): ChannelForm | undefined => FORMS.find((f) => f.id === id);

const sectionOf = (
  config: ClawboxConfig,
  path: readonly string[],
): Record<string, unknown> | undefined => {
  let node: unknown = config;
  for (const key of path) {
    if (!node || typeof node !== "object") return undefined;
    node = (node as Record<string, unknown>)[key];
  }
  return node && typeof node === "object" ? (node as Record<string, unknown>) : undefined;
};

/** A changed field as a config edit; undefined = leave the key alone (a blank secret). */
function editOf(form: ChannelForm, field: FormField, value: FieldValue): ConfigEdit | undefined {
  const path = [...form.path, field.key];
  const text = typeof value === "string" ? value.trim() : value;
  switch (field.kind) {
    case "secret":
      return typeof text === "string" && text ? { path, value: text } : undefined;
    case "bool":
      if (typeof text !== "boolean") throw new Error(`${field.label}: must be on or off`);
      return { path, value: text };
    case "number": {
      const n = typeof text === "number" ? text : Number(text);
      if (text === "" || !Number.isFinite(n)) throw new Error(`${field.label}: must be a number`);
      return { path, value: n };
    }
    case "list": {
      const items = (Array.isArray(text) ? text : String(text).split(","))
        .map((s) => s.trim())
        .filter((s) => s.length > 0);
      return { path, value: items };
    }
    case "select":
      if (text === "") return { path, remove: true };
      if (typeof text !== "string" || !field.options?.includes(text))
        throw new Error(
          `${field.label}: choose one of ${field.options?.filter(Boolean).join(", ")}`,
        );
      return { path, value: text };
    case "text":
      if (typeof text !== "string") throw new Error(`${field.label}: must be text`);
      return text === "" ? { path, remove: true } : { path, value: text };
  }
}

/**
 * The direct-chat policy of a channel set up from the console: "pairing" (strangers get a
 * code for an owner to approve, as OpenClaw does). Only for a section the file does not
 * have yet; an existing section keeps what it says (unset stays unset).
 */
const NEW_CHANNEL_DM_POLICY = "pairing";

const hasDmPolicy = (form: ChannelForm): boolean => form.fields.some((f) => f.key === "dmPolicy");

function editsOf(form: ChannelForm, values: Record<string, FieldValue>): ConfigEdit[] {
  const edits: ConfigEdit[] = [];
  for (const [key, value] of Object.entries(values)) {
    const field = form.fields.find((f) => f.key === key);
    if (!field) throw new Error(`${key}: not a setting of ${form.title}`);
    const edit = editOf(form, field, value);
    if (edit) edits.push(edit);
  }
  return edits;
}

export function registerChannelRoutes(app: Hono<ConsoleEnv>, deps: ConsoleDeps): void {
  /** The config as the file has it now (the page shows the file, not a stale copy). */
  const fileConfig = (): { config: ClawboxConfig; error?: string } => {
    try {
      return { config: loadConfig({ file: deps.configFile, env: deps.env }).config };
    } catch (error) {
      return { config: deps.config, error: toClawboxError(error).message };
    }
  };

  const view = async () => {
    const { config, error } = fileConfig();
    const statuses = readChannelStatus(deps.store.db, deps.config.channels);
    const mqtt = await deps.statusSources?.mqtt?.().catch(() => undefined);
    const house = await deps.statusSources?.homeAssistant?.().catch(() => undefined);
    const voice = await wyomingFormStatus(config.wyoming, deps.paths.home);
    return {
      ...(error ? { fileError: error } : {}),
      forms: FORMS.map((form) => {
        const section = sectionOf(config, form.path);
        const status =
          form.id === "wyoming"
            ? voice
            : form.id === "mqtt"
              ? mqtt?.[0]
                ? { state: mqtt[0].state, reason: mqtt[0].detail ?? null }
                : { state: config.mqtt.enabled ? "starting" : "disabled", reason: null }
              : form.id === "home-assistant"
                ? house?.[0]
                  ? // The channels' word for a working link (the page shows it green).
                    {
                      state: house[0].state === "ready" ? "connected" : house[0].state,
                      reason: house[0].detail ?? null,
                    }
                  : null
                : statuses.find((s) => s.channel === form.id);
        // A form for a channel not set up yet shows the policy its first Save writes.
        const fresh = section === undefined && hasDmPolicy(form);
        return {
          ...form,
          configured:
            form.id === "mqtt" || form.id === "wyoming"
              ? config[form.id].enabled
              : section !== undefined,
          values: Object.fromEntries(
            form.fields.map((f) => [
              f.key,
              fresh && f.key === "dmPolicy"
                ? NEW_CHANNEL_DM_POLICY
                : shownValue(f, section?.[f.key]),
            ]),
          ),
          status: status ?? null,
        };
      }),
    };
  };

  app.get("/console/api/channels", async (c) => c.json(await view()));

  app.post("/console/api/channels/:id", async (c) => {
    const form = formOf(c.req.param("id"));
    if (!form) return apiError(c, 404, "NOT_FOUND", `no channel form ${c.req.param("id")}`);
    const body = await readBody(c, valuesBody);
    if (!body.ok) return body.response;
    let edits: ConfigEdit[];
    try {
      edits = editsOf(form, body.value.values);
    } catch (error) {
      return apiError(c, 400, "HTTP_BAD_REQUEST", (error as Error).message);
    }
    if (edits.length === 0) return c.json({ ...(await view()), applied: [] });
    try {
      const saved = sectionOf(fileConfig().config, form.path);
      if (saved === undefined && hasDmPolicy(form) && !("dmPolicy" in body.value.values))
        edits.push({ path: [...form.path, "dmPolicy"], value: NEW_CHANNEL_DM_POLICY });
      const { config: next } = await previewConfigEdit(deps.configFile, edits, {
        validate: { env: deps.env },
      });
      const refusal = storedSecretRefusal(
        form,
        saved,
        next && sectionOf(next, form.path),
        body.value.values,
        "save",
      );
      if (refusal) return apiError(c, 400, "HTTP_BAD_REQUEST", refusal);
      await editConfigFile(deps.configFile, edits, { validate: { env: deps.env } });
    } catch (error) {
      const failure = toClawboxError(error);
      const wrong = fieldError(form, failure.message);
      if (wrong)
        return c.json(
          { error: { code: failure.code, message: wrong.message, field: wrong.field } },
          400,
        );
      return apiError(c, 400, failure.code, failure.message);
    }
    deps.logger.info("channel settings changed from the console", {
      form: form.id,
      keys: edits.map((e) => e.path.at(-1)),
    });
    const applied = (await deps.reloadConfig?.())?.applied ?? [];
    return c.json({ ...(await view()), applied });
  });

  app.post("/console/api/channels/:id/test", async (c) => {
    const form = formOf(c.req.param("id"));
    if (!form) return apiError(c, 404, "NOT_FOUND", `no channel form ${c.req.param("id")}`);
    const body = await readBody(c, valuesBody);
    if (!body.ok) return body.response;
    let config: ClawboxConfig | undefined;
    /**
     * An answer may quote what the platform said, and a platform may echo what it was
     * sent: the logger's redaction, with the secrets of the settings tested (the file's
     * and those typed into this request, merged in `config`), hides them all.
     */
    const hideSecrets = (text: string) =>
      deps.logger.redact(text, config ? collectSecrets(config) : []);
    try {
      config = (
        await previewConfigEdit(deps.configFile, editsOf(form, body.value.values), {
          validate: { env: deps.env },
        })
      ).config;
    } catch (error) {
      const message = toClawboxError(error).message;
      const wrong = fieldError(form, message);
      return c.json({
        ok: false,
        message: hideSecrets(wrong ? wrong.message : `Fix the settings first: ${message}`),
        ...(wrong ? { field: wrong.field } : {}),
      });
    }
    if (!config) return c.json({ ok: false, message: "The settings could not be read." });
    const refusal = storedSecretRefusal(
      form,
      sectionOf(fileConfig().config, form.path),
      sectionOf(config, form.path),
      body.value.values,
      "test",
    );
    if (refusal) return c.json({ ok: false, message: refusal });
    const result = await probeForm(form, config, deps);
    return c.json({ ...result, message: hideSecrets(result.message) });
  });
}

/** The Test button's check for one form, against the settings as they stand in it. */
async function probeForm(
  form: ChannelForm,
  config: ClawboxConfig,
  deps: ConsoleDeps,
): Promise<ProbeResult> {
  const { qq, wecom } = config.channels;
  const { mqtt } = config;
  switch (form.id) {
    case "qq":
      return qq ? probeQq(qq) : missing(form);
    case "wecom-app":
      return wecom?.app ? probeWeComApp(wecom.app) : missing(form);
    case "wecom-bot": {
      if (!wecom?.bot) return missing(form);
      const live = deps.config.channels.wecom?.bot;
      const state = readChannelStatus(deps.store.db, deps.config.channels).find(
        (s) => s.channel === form.id,
      );
      const running =
        live?.enabled && state && state.state !== "disabled" && state.state !== "stopped"
          ? { botId: live.botId, state: state.state, reason: state.reason }
          : undefined;
      return probeWeComBot(wecom.bot, running);
    }
    case "home-assistant":
      return config.homeAssistant ? probeHomeAssistant(config.homeAssistant) : missing(form);
    case "wyoming":
      return probeWyoming(config.wyoming);
    case "mqtt": {
      const probe = await probeBroker(mqtt, 8000, "console-test");
      return probe.ok
        ? {
            ok: true,
            message: `The broker at ${mqtt.url.replace(/\/\/[^@/]*@/, "//")} accepted the connection.`,
          }
        : {
            ok: false,
            message: `The broker did not accept the connection: ${probe.message}. Check the URL, the user name and the password.`,
          };
    }
  }
}

const missing = (form: ChannelForm): ProbeResult => ({
  ok: false,
  message: `Fill in ${form.fields
    .filter((f) => f.required)
    .map((f) => f.label)
    .join(", ")} first.`,
});
