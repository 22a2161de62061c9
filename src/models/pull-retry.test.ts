import { describe, expect, it } from "vitest";
import { ClawboxError } from "../errors/index.ts";
import { CLOCK_HINT } from "../system/index.ts";
import { type PullRetryNotice, withPullRetry } from "./pull-retry.ts";

const network = (message: string) => new ClawboxError("PROVIDER_NETWORK", message);

/** Fails with `errors` in turn, then answers "done". */
function flaky(errors: Error[]) {
  let calls = 0;
  return {
    run: async () => {
      const error = errors[calls++];
      if (error) throw error;
      return "done";
    },
    calls: () => calls,
  };
}

describe("model pull retries", () => {
  it("retries a not-yet-valid certificate past the attempt limit, naming the clock", async () => {
    const notices: PullRetryNotice[] = [];
    const errors = Array.from({ length: 6 }, () =>
      network("download of https://x/m failed: certificate is not yet valid"),
    );
    const pull = flaky(errors);
    const result = await withPullRetry(pull.run, {
      attempts: 2,
      initialMs: 1,
      maxMs: 2,
      onRetry: (n) => notices.push(n),
    });
    expect(result).toBe("done");
    expect(pull.calls()).toBe(7);
    expect(notices.every((n) => n.clock === CLOCK_HINT)).toBe(true);
  });

  it("gives up on other network errors after the attempt limit, with the last error", async () => {
    const pull = flaky(Array.from({ length: 6 }, (_, i) => network(`refused ${i}`)));
    const error = await withPullRetry(pull.run, { attempts: 2, initialMs: 1, maxMs: 2 }).catch(
      (e: unknown) => e as Error,
    );
    expect(error).toBeInstanceOf(ClawboxError);
    expect((error as Error).message).toBe("refused 2");
    expect(pull.calls()).toBe(3);
  });

  it("does not retry what a retry cannot fix (a checksum mismatch)", async () => {
    const pull = flaky([new ClawboxError("MODEL_INVALID", "checksum mismatch")]);
    await expect(withPullRetry(pull.run, { initialMs: 1 })).rejects.toThrow("checksum mismatch");
    expect(pull.calls()).toBe(1);
  });

  it("stops waiting when the pull is cancelled", async () => {
    const controller = new AbortController();
    const pull = flaky([network("certificate is not yet valid")]);
    const pending = withPullRetry(
      pull.run,
      {
        initialMs: 60_000,
        onRetry: () => setTimeout(() => controller.abort(new Error("cancelled")), 5),
      },
      controller.signal,
    );
    await expect(pending).rejects.toThrow("cancelled");
    expect(pull.calls()).toBe(1);
  });
});
