import {
  existsSync,
  lstatSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { isEffectivelyEmpty } from "./bootstrap-files.ts";
import { seedWorkspace } from "./seed-workspace.ts";
import { TOOLS_MD } from "./templates/tools.ts";
import { parseToolsMd } from "./tools-md.ts";

describe("seedWorkspace", () => {
  it("creates the default files and memory/, never overwrites, never brings BOOTSTRAP.md back", () => {
    const dir = join(mkdtempSync(join(tmpdir(), "clawbox-ws-")), "workspace");
    try {
      const first = seedWorkspace(dir);
      expect(first.created.sort()).toEqual(
        [
          "AGENTS.md",
          "BOOTSTRAP.md",
          "HEARTBEAT.md",
          "IDENTITY.md",
          "SOUL.md",
          "TOOLS.md",
          "USER.md",
          "memory/",
        ].sort(),
      );
      writeFileSync(join(dir, "SOUL.md"), "mine");
      rmSync(join(dir, "BOOTSTRAP.md"));
      rmSync(join(dir, "AGENTS.md"));
      expect(seedWorkspace(dir).created).toEqual(["AGENTS.md"]);
      expect(readFileSync(join(dir, "SOUL.md"), "utf8")).toBe("mine");
      expect(existsSync(join(dir, "BOOTSTRAP.md"))).toBe(false);
      expect(isEffectivelyEmpty(readFileSync(join(dir, "HEARTBEAT.md"), "utf8"))).toBe(true);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("gives a default file left full of NUL bytes by a power cut its text back, and nothing else", () => {
    const dir = join(mkdtempSync(join(tmpdir(), "clawbox-ws-")), "workspace");
    try {
      seedWorkspace(dir);
      const soul = readFileSync(join(dir, "SOUL.md"), "utf8");
      // What ext4 shows after a power cut seconds after an unsynced write: the size, no bytes.
      writeFileSync(join(dir, "SOUL.md"), Buffer.alloc(soul.length));
      writeFileSync(join(dir, "USER.md"), "");
      writeFileSync(join(dir, "IDENTITY.md"), "name: \0 mine");
      expect(seedWorkspace(dir).created).toEqual(["SOUL.md"]);
      expect(readFileSync(join(dir, "SOUL.md"), "utf8")).toBe(soul);
      expect(readFileSync(join(dir, "USER.md"), "utf8")).toBe("");
      expect(readFileSync(join(dir, "IDENTITY.md"), "utf8")).toBe("name: \0 mine");
      expect(existsSync(join(dir, "BOOTSTRAP.md"))).toBe(true);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("leaves the owner's links that point nowhere yet as links (a restart never replaces them)", () => {
    const dir = mkdtempSync(join(tmpdir(), "clawbox-seed-"));
    try {
      seedWorkspace(dir);
      for (const name of ["SOUL.md", "USER.md"]) rmSync(join(dir, name));
      rmSync(join(dir, "memory"), { recursive: true });
      symlinkSync("persona/soul.md", join(dir, "SOUL.md"));
      symlinkSync("persona/user.md", join(dir, "USER.md"));
      symlinkSync("archive/mem", join(dir, "memory"));
      const again = seedWorkspace(dir);
      expect(again.created).toEqual([]);
      for (const name of ["SOUL.md", "USER.md", "memory"])
        expect(lstatSync(join(dir, name)).isSymbolicLink()).toBe(true);
      expect(existsSync(join(dir, "persona"))).toBe(false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("does not start the ritual in an existing OpenClaw workspace", () => {
    const dir = mkdtempSync(join(tmpdir(), "clawbox-ws-"));
    try {
      writeFileSync(join(dir, "USER.md"), "# USER\n- Name: Li");
      expect(seedWorkspace(dir).created).not.toContain("BOOTSTRAP.md");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("TOOLS.md devices", () => {
  it("declares no device by default and parses the documented examples once uncommented", () => {
    expect(parseToolsMd(TOOLS_MD)).toEqual({ cameras: [], sshHosts: [], issues: [] });
    const enabled = TOOLS_MD.replace(/<!--\n/g, "").replace(/-->\n/g, "");
    const parsed = parseToolsMd(enabled);
    expect(parsed.issues).toEqual([]);
    expect(parsed.cameras).toEqual([
      {
        name: "front-door",
        url: "http://192.168.1.50/cgi-bin/snapshot.cgi",
        description: "Front door, looks at the porch",
        username: "viewer",
        passwordEnv: "CAMERA_FRONT_DOOR_PASSWORD",
      },
    ]);
    expect(parsed.sshHosts).toEqual([
      {
        name: "nas",
        host: "192.168.1.10",
        user: "admin",
        port: 22,
        description: "NAS in the closet; media and backups",
      },
    ]);
  });

  it("reports a bad entry with its line and keeps the good ones", () => {
    const parsed = parseToolsMd(
      "## SSH hosts\n- name: pi\n  host: 10.0.0.2\n- name: bad host\n  host: x\n  port: 99999\n",
    );
    expect(parsed.sshHosts.map((h) => h.name)).toEqual(["pi"]);
    expect(parsed.issues[0]?.message).toBe(
      'TOOLS.md line 4: ssh host "bad host": name must use only letters, digits, - and _; port must be at most 65535',
    );
  });
});
