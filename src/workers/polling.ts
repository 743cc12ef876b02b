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
  /** The shortest pause a wake() leaves between two passes (default 0), so that a stream of wakes stays cheap. */
  minPauseMs?: number;
}

export class PollingLoop {
  private loops: Promise<void>[] = [];
  /** Each pause in progress: its end now, and its end as early as a wake() may make it. */
  private readonly pauses = new Set<{ end(): void; wake(): void }>();
  private wokenDuringPass = false;
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
    for (const pause of this.pauses) pause.end();
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

  /** New work was written (e.g. a callback enqueued): paused lanes go again, minPauseMs after their last pass. */
  wake(): void {
    if (this.loops.length === 0 || this.halted) return;
    // A wake during a pass may come after its claim read the queue: the pause that follows is then cut short.
    this.wokenDuringPass = this.pauses.size < (this.options.lanes ?? 1);
    for (const pause of this.pauses) pause.wake();
  }

  private pause(): Promise<void> {
    return new Promise((resolve) => {
      const started = performance.now();
      const pause = {
        end: () => {
          clearTimeout(timer);
          this.pauses.delete(pause);
          resolve();
        },
        wake: () => {
          const left = (this.options.minPauseMs ?? 0) - (performance.now() - started);
          if (left <= 0) return pause.end();
          clearTimeout(timer);
          // libuv times from its cached loop clock, which a busy loop leaves behind: check again when it fires.
          timer = setTimeout(pause.wake, Math.ceil(left));
        },
      };
      let timer = setTimeout(pause.end, this.options.pollMs);
      this.pauses.add(pause);
      if (this.wokenDuringPass) {
        this.wokenDuringPass = false;
        pause.wake();
      }
    });
  }
}

/**
 * A periodic sweep: one pass (runOnce) every pollMs, the first after a pause (a sweep need not run at start-up),
 * a failed pass logged and the loop going on. The re-check, the vault sweeper and the risk pruner are sweeps.
 */
export abstract class Sweep {
  protected readonly polling: PollingLoop;

  constructor(logger: { error(obj: object, msg: string): void }, pollMs: number, failure: string) {
    this.polling = new PollingLoop({
      pollMs,
      pauseFirst: true,
      pass: async () => (await this.runOnce(), false),
      onError: (err) => logger.error({ err: (err as Error).message }, failure),
    });
  }

  /** One pass; answers how many rows it handled. */
  abstract runOnce(): Promise<number>;

  /**
   * Runs `batch` until one comes back short (fewer than `full` rows) or the sweep is stopping; answers the rows
   * of every batch together.
   */
  protected async inBatches(batch: () => Promise<number>, full: number): Promise<number> {
    let total = 0;
    for (;;) {
      const rows = await batch();
      total += rows;
      if (rows < full || this.polling.stopping) return total;
    }
  }

  start(): void {
    this.polling.start();
  }

  stop(): Promise<void> {
    return this.polling.stop();
  }
}
