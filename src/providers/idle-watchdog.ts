/**
 * Aborts a request that receives nothing for `timeoutMs` (reset on every chunk), and
 * tells afterwards whether the abort was ours (timeout) or the caller's signal.
 */
export class IdleWatchdog {
  private readonly controller = new AbortController();
  private timer: ReturnType<typeof setTimeout> | undefined;
  private fired = false;
  readonly signal: AbortSignal;

  constructor(
    private readonly timeoutMs: number,
    private readonly outer?: AbortSignal,
  ) {
    this.signal = outer ? AbortSignal.any([this.controller.signal, outer]) : this.controller.signal;
    this.reset();
  }

  reset(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.fired = true;
      this.controller.abort(new Error(`no data for ${this.timeoutMs} ms`));
    }, this.timeoutMs);
  }

  /** Stops the timer; with `abort`, also cancels the underlying request. */
  clear(abort = false): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    if (abort && !this.controller.signal.aborted)
      this.controller.abort(new Error("request closed"));
  }

  get timedOut(): boolean {
    return this.fired;
  }

  get callerAborted(): boolean {
    return this.outer?.aborted === true;
  }
}
