import { describe, expect, it } from "vitest";
import { formatBytes } from "./format-bytes.ts";

describe("formatBytes", () => {
  it("writes three significant digits in decimal units", () => {
    expect(formatBytes(0)).toBe("0 B");
    expect(formatBytes(999)).toBe("999 B");
    expect(formatBytes(1000)).toBe("1 kB");
    expect(formatBytes(439_000)).toBe("439 kB");
    expect(formatBytes(1_185_376)).toBe("1.19 MB");
    expect(formatBytes(24_000_000)).toBe("24 MB");
    expect(formatBytes(639_446_688)).toBe("639 MB");
    expect(formatBytes(1_117_320_736)).toBe("1.12 GB");
    expect(formatBytes(999_600)).toBe("1 MB");
    expect(formatBytes(-1)).toBe("?");
  });
});
