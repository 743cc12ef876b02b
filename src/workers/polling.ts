/**
 * The loop every worker runs: a pass, then a pause of pollMs, until stopped. A pass that reports more work
 * waiting (a full batch) is followed at once. Errors of a pass are handed to onError and the loop goes on;
 * stop() wakes the pauses and resolves once the passes in flight have settled.
 */
export interface PollingOptions {
  /** One pass; answers true when more work is waiting, to go again without a pause. */
  pass(): Promise<boolean>;
  onError(err: unknown): void;
  pollMs: number;
  /** Loops running side by side (default 1). */
  lanes?: number;
  /** Pause before the first pass too (for sweeps that need not run at start-up). */
  pauseFirst?: boolean;
}

export class PollingLoop {
  private loops: Promise<void>[] = [];
  private readonly wakers = new Set<() => void>();
  private halted = false;

  constructor(private readonly options: PollingOptions) {}

  /** True from stop() on: long passes check it to end early. */
  get stopping(): boolean {
    return this.halted;
  }

  start(): void {
    if (this.loops.length > 0) return;
    this.halted = false;
    this.loops = Array.from({ length: this.options.lanes ?? 1 }, () => this.loop());
  }

  async stop(): Promise<void> {
    this.halted = true;
    for (const wake of this.wakers) wake();
    await Promise.all(this.loops);
    this.loops = [];
  }

  private async loop(): Promise<void> {
    if (this.options.pauseFirst) await this.pause();
    while (!this.halted) {
      let again = false;
      try {
        again = await this.options.pass();
      } catch (err) {
        this.options.onError(err);
      }
      if (!again && !this.halted) await this.pause();
    }
  }

  private pause(): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.wakers.delete(done);
        resolve();
      };
      const timer = setTimeout(done, this.options.pollMs);
      this.wakers.add(done);
    });
  }
}
