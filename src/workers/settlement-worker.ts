/**
 * The settlement worker (issue 27): every pollMs, settles what is due per merchant and currency and releases due
 * reserves (services/money/settlement.ts). Safe in any number of nodes at once: each statement and each release
 * is made once whoever runs it.
 */
import type { ServiceContext } from '../services/context.ts';
import { settleAll } from '../services/money/settlement.ts';
import { PollingLoop } from './polling.ts';

export class SettlementWorker {
  private readonly polling: PollingLoop;

  constructor(private readonly ctx: ServiceContext, opts: { pollMs?: number } = {}) {
    this.polling = new PollingLoop({
      pollMs: opts.pollMs ?? 10 * 60_000,
      pass: async () => (await this.runOnce(), false),
      onError: (err) => this.ctx.logger.error({ err: (err as Error).message }, 'settlement pass failed'),
    });
  }

  async runOnce(): Promise<{ statements: number; released: number }> {
    const { statements, released } = await settleAll(this.ctx);
    if (statements.length > 0 || released > 0) this.ctx.logger.info({ statements: statements.length, released }, 'settlement: statements made, reserves released');
    return { statements: statements.length, released };
  }

  start(): void {
    this.polling.start();
  }

  stop(): Promise<void> {
    return this.polling.stop();
  }
}
