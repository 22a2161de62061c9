import { chmodSync, mkdtempSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { checkHome } from "./check-home.ts";

describe("checkHome", () => {
  it("creates a missing home closed to other users", () => {
    const home = join(mkdtempSync(join(tmpdir(), "clawbox-home-")), "box");
    expect(checkHome(home).status).toBe("ok");
    expect(statSync(home).mode & 0o077).toBe(0);
  });

  it("warns when other local users can enter the home, naming the chmod", () => {
    const home = mkdtempSync(join(tmpdir(), "clawbox-home-"));
    chmodSync(home, 0o755);
    const result = checkHome(home);
    expect(result.status).toBe("warn");
    expect(result.message).toContain("mode 755");
    expect(result.fix).toBe(`chmod o-rwx ${home}`);
    chmodSync(home, 0o750);
    expect(checkHome(home).status).toBe("ok");
  });
});
