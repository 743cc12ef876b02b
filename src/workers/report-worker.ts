/**
 * The report worker (issue 30, scheduled reports): every pollMs, produces the due scheduled reports, mails the
 * links of those to be mailed, and deletes expired reports (services/portal/reports.ts). Safe in any number of
 * nodes at once: a subscription's period is claimed by a lease in the database and finished only while the lease
 * holds, so each report is made once whoever runs it.
 */
import type { ServiceContext } from '../services/context.ts';
import { mailDueReports, produceDueReports, pruneExpiredReports, type ProducedReport } from '../services/portal/reports.ts';
import { PollingLoop } from './polling.ts';

export class ReportWorker {
  private readonly polling: PollingLoop;

  constructor(private readonly ctx: ServiceContext, opts: { pollMs?: number } = {}) {
    this.polling = new PollingLoop({
      pollMs: opts.pollMs ?? 60_000,
      pass: async () => (await this.runOnce(), false),
      onError: (err) => this.ctx.logger.error({ err: (err as Error).message }, 'report pass failed'),
    });
  }

  async runOnce(opts: { chunkChars?: number } = {}): Promise<{ produced: ProducedReport[]; mailed: number; pruned: number }> {
    const produced = await produceDueReports(this.ctx, opts);
    const mailed = await mailDueReports(this.ctx);
    const pruned = await pruneExpiredReports(this.ctx);
    if (produced.length > 0 || mailed > 0 || pruned > 0) this.ctx.logger.info({ produced: produced.length, mailed, pruned }, 'scheduled reports: produced, mailed, pruned');
    return { produced, mailed, pruned };
  }

  start(): void {
    this.polling.start();
  }

  stop(): Promise<void> {
    return this.polling.stop();
  }
}
