/**
 * Parser of the device entries in TOOLS.md ("## Cameras", "## SSH hosts"), which the
 * runtime turns into camera_snapshot and ssh_exec tools. Format (documented in the
 * default TOOLS.md): one "- name: <id>" list item per device with indented
 * "key: value" lines; HTML comments are ignored. Bad entries are reported with their
 * line number in plain words ("TOOLS.md line 12: camera porch: host is missing"), never
 * thrown, so one typo does not take the other devices down. An unknown key is named
 * (a misspelled `pasword_env` would otherwise be dropped silently), and a literal
 * secret (`password: …`, `token: …`) refuses its entry: the file is in the model's
 * prompt every turn, so secrets are named by environment variable (`password_env`).
 * `maskToolsMdSecrets` keeps such a value out of the prompt text as well. A device
 * entry outside the two sections is named on its line (it would be no device), and
 * problems are listed in line order.
 */
import { z } from "../schema/index.ts";

const nameField = z
  .string()
  .check(z.regex(/^[A-Za-z0-9_-]+$/, "must use only letters, digits, - and _"));

const envName = z
  .string()
  .check(z.regex(/^[A-Z_][A-Z0-9_]*$/, "must be an environment variable name"));

/**
 * A camera: an HTTP(S) snapshot URL, an RTSP stream (one frame via ffmpeg), a USB camera
 * (`device: /dev/video0`) or the Pi camera (`source: rpicam`).
 */
export const cameraEntrySchema = z
  .object({
    name: nameField,
    source: z.optional(z.enum(["http", "rtsp", "v4l2", "rpicam"])),
    url: z.optional(
      z
        .string()
        .check(z.regex(/^(https?|rtsps?):\/\/\S+$/, "must be an http(s):// or rtsp:// URL")),
    ),
    device: z.optional(z.string().check(z.regex(/^\/dev\/\S+$/, "must be a /dev path"))),
    description: z.optional(z.string()),
    username: z.optional(z.string()),
    passwordEnv: z.optional(envName),
    tokenEnv: z.optional(envName),
  })
  .check(
    z.refine((c) => c.url || c.device || c.source === "rpicam", {
      message: "needs a url, a device or source: rpicam",
    }),
  );

export const sshHostEntrySchema = z.object({
  name: nameField,
  host: z.string().check(z.minLength(1)),
  user: z._default(z.string().check(z.minLength(1)), "root"),
  port: z._default(z.coerce.number().check(z.int(), z.minimum(1), z.maximum(65535)), 22),
  description: z.optional(z.string()),
  keyFile: z.optional(z.string()),
});

export type CameraEntry = z.infer<typeof cameraEntrySchema>;
export type SshHostEntry = z.infer<typeof sshHostEntrySchema>;

export interface ToolsMdIssue {
  line: number;
  message: string;
}

export interface ToolsMd {
  cameras: CameraEntry[];
  sshHosts: SshHostEntry[];
  issues: ToolsMdIssue[];
}

type Section = "cameras" | "ssh" | null;

const KNOWN_KEYS: Record<"cameras" | "ssh", readonly string[]> = {
  cameras: [
    "name",
    "source",
    "url",
    "device",
    "description",
    "username",
    "password_env",
    "token_env",
  ],
  ssh: ["name", "host", "user", "port", "description", "key_file"],
};

/** Keys that make a list item a device (not a free note that happens to have a name). */
const DEVICE_KEYS = new Set(
  [...KNOWN_KEYS.cameras, ...KNOWN_KEYS.ssh].filter((k) => k !== "name" && k !== "description"),
);

const WHAT: Record<"cameras" | "ssh", string> = { cameras: "camera", ssh: "ssh host" };

/** A key that holds a secret itself, not the name of a variable holding it. */
const SECRET_KEY =
  /^(?:[a-z0-9]+_)*(?:pass|password|passwd|passphrase|pw|pwd|secret|token|api_?key|apikey|private_?key|credentials?|auth)$/i;

function isSecretKey(key: string): boolean {
  return SECRET_KEY.test(key);
}

function envFormOf(key: string, section: "cameras" | "ssh"): string {
  if (section === "ssh") return "key_file: <a key under <home>/ssh/>";
  return /token|api_?key|auth/i.test(key) ? "token_env: NAME" : "password_env: NAME";
}

function sectionOf(heading: string): Section {
  const h = heading.toLowerCase();
  if (h.includes("camera")) return "cameras";
  if (h.includes("ssh")) return "ssh";
  return null;
}

const camelKey = (key: string): string =>
  key.replace(/_([a-z])/g, (_m, c: string) => c.toUpperCase());

const snakeKey = (key: string): string => key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

/** Blanks out HTML comments but keeps line numbers. */
function stripComments(text: string): string {
  return text.replace(/<!--[\s\S]*?(-->|$)/g, (m) => m.replace(/[^\n]/g, ""));
}

interface Pending {
  section: "cameras" | "ssh";
  line: number;
  fields: Record<string, string>;
  refused: boolean;
}

const KEY_VALUE = /^(\s*(?:[-*]\s+)?)([A-Za-z_][A-Za-z0-9_]*)(\s*:\s*)(\S.*)$/;
const HIDDEN = "[not shown: a secret written into TOOLS.md; name an environment variable instead]";
let lastMasked: { text: string; masked: string } | undefined;

/**
 * TOOLS.md as the prompt may carry it: the value of any `password:`, `token:`,
 * `secret:`-like line is replaced by a note. The last result is kept, so an unchanged
 * file costs nothing per turn.
 */
export function maskToolsMdSecrets(text: string): string {
  if (lastMasked?.text === text) return lastMasked.masked;
  const masked = text
    .split("\n")
    .map((line) => {
      const m = KEY_VALUE.exec(line);
      return m && isSecretKey(m[2] ?? "") ? `${m[1]}${m[2]}${m[3]}${HIDDEN}` : line;
    })
    .join("\n");
  lastMasked = { text, masked };
  return masked;
}

export function parseToolsMd(text: string): ToolsMd {
  const out: ToolsMd = { cameras: [], sshHosts: [], issues: [] };
  const lines = stripComments(text).split("\n");
  let section: Section = null;
  let current: Pending | null = null;
  const issue = (line: number, message: string) =>
    out.issues.push({ line, message: `TOOLS.md line ${line}: ${message}` });
  const label = (entry: Pending) => {
    const name = entry.fields.name;
    if (!name) return `${WHAT[entry.section]} entry`;
    return `${WHAT[entry.section]} ${/^[A-Za-z0-9_-]+$/.test(name) ? name : JSON.stringify(name)}`;
  };
  const addKey = (entry: Pending, key: string, value: string, lineNo: number) => {
    if (isSecretKey(key)) {
      entry.refused = true;
      issue(
        lineNo,
        `${label(entry)}: "${key}" is a secret written into the file, which the model reads every turn; the entry is left out. Put the secret in an environment variable of the service and write ${envFormOf(key, entry.section)} instead (see docs/TOOLS.md)`,
      );
      return;
    }
    if (!KNOWN_KEYS[entry.section].includes(key)) {
      issue(
        lineNo,
        `${label(entry)}: unknown key "${key}", ignored (known keys: ${KNOWN_KEYS[entry.section].join(", ")})`,
      );
      return;
    }
    entry.fields[camelKey(key)] = value;
  };
  const flush = () => {
    const entry = current;
    current = null;
    if (!entry || entry.refused) return;
    const schema = entry.section === "cameras" ? cameraEntrySchema : sshHostEntrySchema;
    const parsed = schema.safeParse(entry.fields);
    if (!parsed.success) {
      const why = parsed.error.issues.map((i) => {
        const key = i.path.length > 0 ? snakeKey(i.path.map(String).join(".")) : "";
        return key ? `${key} ${i.message}` : i.message;
      });
      issue(entry.line, `${label(entry)}: ${why.join("; ")}`);
    } else if (entry.section === "cameras") {
      out.cameras.push(parsed.data as CameraEntry);
    } else {
      out.sshHosts.push(parsed.data as SshHostEntry);
    }
  };
  // A "- name: x" item outside the two sections, with device keys, would be silently
  // no device: it is named on its line instead.
  let stray: { line: number; name: string; deviceKey: string | undefined } | null = null;
  const flushStray = () => {
    const found = stray;
    stray = null;
    if (!found?.deviceKey) return;
    const what = /^[A-Za-z0-9_-]+$/.test(found.name) ? found.name : JSON.stringify(found.name);
    issue(
      found.line,
      `device entry ${what} (it has "${found.deviceKey}") is outside the "## Cameras" and "## SSH hosts" sections, so it is ignored; move it under one of those headings`,
    );
  };
  const strayLine = (raw: string, lineNo: number) => {
    const item = /^[-*]\s+name\s*:\s*(.*)$/.exec(raw);
    if (item) {
      flushStray();
      stray = { line: lineNo, name: (item[1] ?? "").trim(), deviceKey: undefined };
      return;
    }
    const field = /^\s+([A-Za-z_][A-Za-z0-9_]*)\s*:/.exec(raw);
    if (field && stray) {
      const key = field[1] ?? "";
      if (!stray.deviceKey && DEVICE_KEYS.has(key)) stray.deviceKey = key;
      return;
    }
    if (raw.trim() !== "") flushStray();
  };
  lines.forEach((raw, index) => {
    const lineNo = index + 1;
    const heading = /^#{1,6}\s+(.*)$/.exec(raw);
    if (heading) {
      flush();
      flushStray();
      section = sectionOf(heading[1] ?? "");
      return;
    }
    if (!section) {
      strayLine(raw, lineNo);
      return;
    }
    const item = /^[-*]\s+([A-Za-z_][A-Za-z0-9_]*)\s*:\s*(.*)$/.exec(raw);
    if (item) {
      flush();
      const entry: Pending = { section, line: lineNo, fields: {}, refused: false };
      current = entry;
      if (item[1] !== "name") {
        issue(lineNo, `an entry must start with "- name: <id>"`);
      }
      addKey(entry, item[1] ?? "", (item[2] ?? "").trim(), lineNo);
      return;
    }
    const field = /^\s+([A-Za-z_][A-Za-z0-9_]*)\s*:\s*(.*)$/.exec(raw);
    if (field && current) {
      addKey(current, field[1] ?? "", (field[2] ?? "").trim(), lineNo);
      return;
    }
    if (raw.trim() === "") return;
    flush();
  });
  flush();
  flushStray();
  // An entry's own problem is found when it ends, after its keys' problems: line order.
  out.issues.sort((a, b) => a.line - b.line);
  return out;
}
