/**
 * Deletes velocity counters older than the longest window a rule can read (30 days, and an hour of margin): they
 * can no longer count in any rule, and the risk tables would otherwise grow with every payment. Batches of one
 * statement each; any number of pruners may run (a row deleted twice is deleted once).
 */
import type { ServiceContext } from '../services/context.ts';
import { pruneRiskCounters } from '../services/risk/engine.ts';
import { PollingLoop } from './polling.ts';

export class RiskPruner {
  private readonly polling: PollingLoop;

  constructor(private readonly ctx: ServiceContext, opts: { pollMs?: number } = {}) {
    this.polling = new PollingLoop({
      pollMs: opts.pollMs ?? 10 * 60_000,
      pauseFirst: true,
      pass: async () => (await this.runOnce(), false),
      onError: (err) => this.ctx.logger.error({ err: (err as Error).message }, 'risk counter pruning failed'),
    });
  }

  /** One pass: batches until one comes back short; returns how many rows were deleted. */
  async runOnce(): Promise<number> {
    let removed = 0;
    for (;;) {
      const batch = await pruneRiskCounters(this.ctx);
      removed += batch;
      if (batch < 10_000 || this.polling.stopping) break;
    }
    return removed;
  }

  start(): void {
    this.polling.start();
  }

  stop(): Promise<void> {
    return this.polling.stop();
  }
}
