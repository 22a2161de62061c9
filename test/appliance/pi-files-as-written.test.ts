/**
 * Small issue-18 items that decide whether a card boots as written: every file the Pi runs
 * or reads keeps LF line ends whatever the checkout platform (a CRLF shebang line stops a
 * script with "bad interpreter"); prepare-sd.sh leaves a user's manual camera set-up
 * alone (re-adding camera_auto_detect=1 would cancel a sensor overlay); the unit hides
 * /boot/firmware from the service and its comment says what really happens before READY;
 * prepare-sd.sh runs where `sed -i` differs (macOS), because it never uses it.
 */
import { spawnSync } from "node:child_process";
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { makeFakeCard, prepare, ROOT } from "./fake-card.ts";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const HAVE_GIT_CHECKOUT =
  spawnSync("git", ["rev-parse", "--is-inside-work-tree"], { cwd: ROOT }).status === 0;
if (!HAVE_GIT_CHECKOUT) console.warn("skipping the line-end check: not a git checkout");

describe("files for the Pi", () => {
  it.skipIf(!HAVE_GIT_CHECKOUT)(
    "are stored with LF and pinned to LF by .gitattributes (scripts, first-boot files, unit, package scripts)",
    () => {
      const listing = spawnSync(
        "git",
        ["ls-files", "--eol", "--", "firmware-config", "systemd", "bin", "scripts"],
        { cwd: ROOT, encoding: "utf8" },
      ).stdout;
      const rows = listing
        .trim()
        .split("\n")
        .map((line) => {
          const [index = "", , attr = ""] = line.split(/\s+/);
          return {
            index,
            attr: line.includes("eol=lf") ? "eol=lf" : attr,
            path: line.split("\t")[1] ?? "",
          };
        })
        .filter(
          (r) => /^(firmware-config|systemd)\//.test(r.path) || /\.sh$|^bin\/clawbox$/.test(r.path),
        );
      expect(rows.map((r) => r.path)).toEqual(
        expect.arrayContaining([
          "firmware-config/firstrun.sh",
          "systemd/debian/postinst",
          "bin/clawbox",
        ]),
      );
      const notPinned = rows.filter((r) => r.attr !== "eol=lf").map((r) => r.path);
      const notLf = rows
        .filter((r) => r.index !== "i/lf" && r.index !== "i/none")
        .map((r) => r.path);
      expect(notPinned).toEqual([]);
      expect(notLf).toEqual([]);
    },
  );

  it("prepare-sd.sh never uses sed -i (macOS's sed takes -i differently), in either mode", () => {
    const bin = mkdtempSync(join(tmpdir(), "clawbox-no-sed-i-"));
    dirs.push(bin);
    const realSed = spawnSync("sh", ["-c", "command -v sed"], { encoding: "utf8" }).stdout.trim();
    writeFileSync(
      join(bin, "sed"),
      `#!/bin/sh\nfor a in "$@"; do case "$a" in -i*|--in-place*) echo "sed -i used" >&2; exit 64;; esac; done\nexec ${realSed} "$@"\n`,
    );
    chmodSync(join(bin, "sed"), 0o755);
    const env = { PATH: `${bin}:${process.env.PATH ?? ""}` };
    for (const os of ["trixie", "bookworm"]) {
      const card = makeFakeCard(os === "trixie", dirs);
      writeFileSync(join(card.boot, "config.txt"), "[all]\r\narm_64bit=1");
      const args = ["--boot", card.boot, "--ssh-key", card.key, "--deb", card.deb, "--os", os];
      const run = prepare(
        [...args, "--wifi-ssid", "Home", "--wifi-password", "secret-pass", "--wifi-country", "DE"],
        env,
      );
      expect(run.stderr, os).not.toContain("sed -i used");
      expect(run.status, `${os}: ${run.stderr}`).toBe(0);
      // Run twice: replacing an earlier block is where an in-place edit would be tempting.
      expect(prepare(args, env).status, os).toBe(0);
    }
  });

  it("prepare-sd.sh keeps a manual camera overlay: it never adds camera_auto_detect=1", () => {
    const card = makeFakeCard(true, dirs);
    writeFileSync(
      join(card.boot, "config.txt"),
      "[all]\narm_64bit=1\ncamera_auto_detect=0\ndtoverlay=imx219,cam0\n",
    );
    const args = ["--boot", card.boot, "--ssh-key", card.key, "--deb", card.deb];
    expect(prepare(args).status).toBe(0);
    const config = readFileSync(join(card.boot, "config.txt"), "utf8");
    const settings = config.split("\n").filter((line) => line.trim() && !line.startsWith("#"));
    expect(settings).toContain("camera_auto_detect=0");
    expect(settings).toContain("dtoverlay=imx219,cam0");
    expect(settings.filter((line) => line.startsWith("camera_auto_detect"))).toEqual([
      "camera_auto_detect=0",
    ]);
    expect(settings.some((line) => line.startsWith("dtparam=watchdog"))).toBe(false);
  });

  it("the unit keeps the FAT partition (Wi-Fi settings) out of reach and says models load after READY", () => {
    const unit = readFileSync(join(ROOT, "systemd", "clawbox.service"), "utf8");
    expect(unit.split("\n")).toContain("InaccessiblePaths=-/boot/firmware");
    const comments = unit
      .split("\n")
      .filter((line) => line.startsWith("#"))
      .join(" ");
    expect(comments).toMatch(/READY=1 comes before any model loads/);
    expect(comments).not.toMatch(
      /models? (are )?loaded before READY|loads? the model before READY/i,
    );
  });
});
