/**
 * Disputes' clockwork (issue 29): plays the sandbox's chargeback timelines on their merchants' test clocks
 * (services/disputes/sandbox.ts) and alerts the deadlines that come near (services/disputes/defence.ts). Any number of workers may run: each step is applied once (its notice key)
 * and marked done by compare-and-set.
 */
import type { ServiceContext } from '../services/context.ts';
import { runSandboxSteps } from '../services/disputes/sandbox.ts';
import { alertDeadlines } from '../services/disputes/defence.ts';
import { PollingLoop } from './polling.ts';

export class DisputeWorker {
  private readonly polling: PollingLoop;

  constructor(private readonly ctx: ServiceContext, opts: { pollMs?: number } = {}) {
    this.polling = new PollingLoop({
      pollMs: opts.pollMs ?? 30_000,
      pass: async () => (await this.runOnce()) >= 100,
      onError: (err) => this.ctx.logger.error({ err: (err as Error).message }, 'dispute worker pass failed'),
    });
  }

  /** One pass; answers how many sandbox steps ran. */
  async runOnce(): Promise<number> {
    const steps = await runSandboxSteps(this.ctx);
    await alertDeadlines(this.ctx);
    return steps;
  }

  start(): void {
    this.polling.start();
  }

  stop(): Promise<void> {
    return this.polling.stop();
  }
}
