/**
 * Parser of the device entries in TOOLS.md ("## Cameras", "## SSH hosts"), which the
 * runtime turns into camera_snapshot and ssh_exec tools. Format (documented in the
 * default TOOLS.md): one "- name: <id>" list item per device with indented
 * "key: value" lines; HTML comments are ignored. Bad entries are reported with their
 * line number, never thrown, so one typo does not take the other devices down.
 */
import { z } from "../schema/index.ts";

const nameField = z.string().check(z.regex(/^[A-Za-z0-9_-]+$/, "letters, digits, - and _ only"));

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

function sectionOf(heading: string): Section {
  const h = heading.toLowerCase();
  if (h.includes("camera")) return "cameras";
  if (h.includes("ssh")) return "ssh";
  return null;
}

const camelKey = (key: string): string =>
  key.replace(/_([a-z])/g, (_m, c: string) => c.toUpperCase());

/** Blanks out HTML comments but keeps line numbers. */
function stripComments(text: string): string {
  return text.replace(/<!--[\s\S]*?(-->|$)/g, (m) => m.replace(/[^\n]/g, ""));
}

export function parseToolsMd(text: string): ToolsMd {
  const out: ToolsMd = { cameras: [], sshHosts: [], issues: [] };
  const lines = stripComments(text).split("\n");
  let section: Section = null;
  let current: { fields: Record<string, string>; line: number; section: Section } | null = null;
  const flush = () => {
    if (!current) return;
    const schema = current.section === "cameras" ? cameraEntrySchema : sshHostEntrySchema;
    const parsed = schema.safeParse(current.fields);
    if (!parsed.success) {
      const why = parsed.error.issues
        .map((i) => `${i.path.join(".") || "entry"}: ${i.message}`)
        .join("; ");
      out.issues.push({ line: current.line, message: `TOOLS.md:${current.line}: ${why}` });
    } else if (current.section === "cameras") {
      out.cameras.push(parsed.data as CameraEntry);
    } else {
      out.sshHosts.push(parsed.data as SshHostEntry);
    }
    current = null;
  };
  lines.forEach((raw, index) => {
    const lineNo = index + 1;
    const heading = /^#{1,6}\s+(.*)$/.exec(raw);
    if (heading) {
      flush();
      section = sectionOf(heading[1] ?? "");
      return;
    }
    if (!section) return;
    const item = /^[-*]\s+([A-Za-z_]+)\s*:\s*(.*)$/.exec(raw);
    if (item) {
      flush();
      current = {
        fields: { [camelKey(item[1] ?? "")]: (item[2] ?? "").trim() },
        line: lineNo,
        section,
      };
      if (item[1] !== "name") {
        out.issues.push({
          line: lineNo,
          message: `TOOLS.md:${lineNo}: an entry must start with "- name: <id>"`,
        });
      }
      return;
    }
    const field = /^\s+([A-Za-z_]+)\s*:\s*(.*)$/.exec(raw);
    if (field && current) {
      current.fields[camelKey(field[1] ?? "")] = (field[2] ?? "").trim();
      return;
    }
    if (raw.trim() === "") return;
    flush();
  });
  flush();
  return out;
}
