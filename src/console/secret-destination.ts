/**
 * A stored channel secret goes only where it was saved to go. The Channels page's Test
 * and Save take the form as it stands, unsaved changes included, and a blank secret
 * field means "the stored one"; without this rule a console request could point the
 * token URL (or API base, long-connection URL, broker URL or its certificate checks) at
 * a listener of its choosing and have the box send it the stored secret. Guarantee: when
 * a request changes where a form's secrets go, each of those secrets that would be used
 * must be typed again in that same request; otherwise the request is refused in plain
 * words and nothing is sent or written.
 */
import type { ChannelForm } from "./channel-forms.ts";

type Section = Record<string, unknown> | undefined;

const same = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);
const typedIn = (values: Record<string, unknown>, key: string): boolean => {
  const value = values[key];
  return typeof value === "string" && value.trim() !== "";
};

/**
 * Why the request may not use the stored secrets, or undefined when it may: `saved` is
 * the form's section as the config file has it, `next` the section with the request's
 * changes, `typed` the request's values.
 */
export function storedSecretRefusal(
  form: ChannelForm,
  saved: Section,
  next: Section,
  typed: Record<string, unknown>,
  action: "test" | "save",
): string | undefined {
  const moved = form.secretsGoTo.fields.filter((key) => !same(saved?.[key], next?.[key]));
  if (moved.length === 0) return undefined;
  // A secret in the new settings that the request did not type is the stored one.
  const stored = form.secretsGoTo.secrets.filter(
    (key) => typeof next?.[key] === "string" && next[key] !== "" && !typedIn(typed, key),
  );
  if (stored.length === 0) return undefined;
  const label = (key: string) => form.fields.find((f) => f.key === key)?.label ?? key;
  const names = (keys: readonly string[]) => keys.map(label).join(" and ");
  return `${names(moved)} changed, so type the ${names(stored)} again to ${action === "test" ? "test" : "save"} with it: the stored ${names(stored)} is only sent to the saved address.`;
}
