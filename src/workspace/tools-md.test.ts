import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { FileCache } from "./file-cache.ts";
import { readBootstrapFiles } from "./load-bootstrap.ts";
import { parseToolsMd } from "./tools-md.ts";

const CAMERA_WITH_SECRET = [
  "# Tools",
  "",
  "## Cameras",
  "",
  "- name: living_room",
  "  url: rtsp://192.168.1.20/stream1",
  "  username: admin",
  "  password: hunter2",
  "",
  "- name: porch",
  "  url: http://192.168.1.21/snap.jpg",
  "  pasword_env: NAS_PW",
  "",
].join("\n");

let dir = "";
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = "";
});

describe("TOOLS.md device entries", () => {
  it("refuses an entry holding a literal password, pointing to password_env, with its line", () => {
    const parsed = parseToolsMd(CAMERA_WITH_SECRET);
    expect(parsed.cameras.map((c) => c.name)).toEqual(["porch"]);
    const secret = parsed.issues.find((i) => i.line === 8);
    expect(secret?.message).toMatch(
      /^TOOLS\.md line 8: camera living_room: "password" is a secret .*password_env: NAME/,
    );
    expect(JSON.stringify(parsed)).not.toContain("hunter2");
  });

  it("names an unknown (misspelled) key with its line instead of dropping it silently", () => {
    const parsed = parseToolsMd(CAMERA_WITH_SECRET);
    expect(parsed.issues.find((i) => i.line === 12)?.message).toBe(
      'TOOLS.md line 12: camera porch: unknown key "pasword_env", ignored (known keys: name, source, url, device, description, username, password_env, token_env)',
    );
  });

  it("flags token- and secret-like keys too, in either section", () => {
    const parsed = parseToolsMd(
      "## Cameras\n- name: ha\n  url: http://ha.local/cam\n  token: abc\n## SSH hosts\n- name: nas\n  host: nas\n  ssh_password: pw\n",
    );
    expect(parsed.cameras).toEqual([]);
    expect(parsed.sshHosts).toEqual([]);
    expect(parsed.issues.map((i) => i.line)).toEqual([4, 8]);
    expect(parsed.issues[0]?.message).toContain("token_env: NAME");
  });

  it("says what is wrong in plain words", () => {
    const parsed = parseToolsMd(
      "## SSH hosts\n\n- name: nas\n  port: twenty-two\n\n## Cameras\n- name: porch\n  url: ftp://x\n",
    );
    expect(parsed.issues.map((i) => i.message)).toEqual([
      "TOOLS.md line 3: ssh host nas: host is missing; port must be a number",
      "TOOLS.md line 7: camera porch: url must be an http(s):// or rtsp:// URL",
    ]);
  });

  it("never puts a literal secret into the prompt's copy of TOOLS.md", () => {
    dir = mkdtempSync(join(tmpdir(), "clawbox-toolsmd-"));
    writeFileSync(
      join(dir, "TOOLS.md"),
      `${CAMERA_WITH_SECRET}\nAPI notes\napi_key: sk-live-123\n`,
    );
    const loaded = readBootstrapFiles(dir, ["TOOLS.md"], new FileCache());
    const text = loaded.files[0]?.text ?? "";
    expect(text).toContain("living_room");
    expect(text).toContain("pasword_env: NAS_PW");
    expect(text).not.toContain("hunter2");
    expect(text).not.toContain("sk-live-123");
    expect(text).toContain("password: [not shown");
  });

  it("names a device entry outside a camera or SSH section on its line, and lists problems in line order", () => {
    const parsed = parseToolsMd(
      [
        "# TOOLS.md", // 1
        "- name: garage", // 2: before any section
        "  url: http://192.168.1.60/snap.jpg", // 3
        "", // 4
        "## Cameras", // 5
        "- name: porch", // 6: its own problem (no url) is found after line 7's
        "  pasword_env: CAM_PW", // 7
        "", // 8
        "## Notes", // 9
        "- name: 王阿姨", // 10: a note with a name, no device keys: fine
        "  description: 周三来打扫", // 11
        "- name: nas", // 12: a device under Notes
        "  host: 192.168.1.10", // 13
        "",
      ].join("\n"),
    );
    expect(parsed.cameras).toEqual([]);
    expect(parsed.sshHosts).toEqual([]);
    expect(parsed.issues.map((i) => i.line)).toEqual([2, 6, 7, 12]);
    expect(parsed.issues[0]?.message).toBe(
      'TOOLS.md line 2: device entry garage (it has "url") is outside the "## Cameras" and "## SSH hosts" sections, so it is ignored; move it under one of those headings',
    );
    expect(parsed.issues[3]?.message).toContain('device entry nas (it has "host")');
  });
});
