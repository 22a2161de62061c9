import { describe, expect, it } from "vitest";
import { ClawboxError } from "../errors/index.ts";
import { consoleWording } from "./model-pull-job.ts";

describe("a pull that cannot reach the download site, as the Models page says it", () => {
  it("names the site and the ways that need no internet, not the resolver's code", () => {
    const said = consoleWording(
      new ClawboxError("PROVIDER_NETWORK", "TypeError: getaddrinfo ENOTFOUND huggingface.co", {
        hint: "check the network and run the same command again; the download resumes",
      }),
    );
    expect(said).toContain("cannot reach the download site (huggingface.co)");
    expect(said).toContain("models.mirror");
    expect(said).toContain("clawbox models use /path/to/file.gguf");
    expect(said).not.toContain("ENOTFOUND");
    expect(said).not.toContain("run the same command");
  });
});
