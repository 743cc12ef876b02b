/**
 * Declines card payments held for a risk review that no operator decided by the review's deadline (issue 26;
 * services/risk/review.ts expireReviews). Every node may run it: each decline is a compare-and-set on the payment,
 * so exactly one node applies it and the merchant gets one callback.
 */
import type { ServiceContext } from '../services/context.ts';
import { expireReviews } from '../services/risk/review.ts';
import { PollingLoop } from './polling.ts';

export class RiskReviewExpiry {
  private readonly polling: PollingLoop;

  constructor(private readonly ctx: ServiceContext, opts: { pollMs?: number } = {}) {
    this.polling = new PollingLoop({
      pollMs: opts.pollMs ?? 60_000,
      pauseFirst: true,
      // A full batch: more may be due at once, so the next pass comes without the pause.
      pass: async () => (await this.runOnce()) >= 100,
      onError: (err) => this.ctx.logger.error({ err: (err as Error).message }, 'risk review expiry failed'),
    });
  }

  /** One pass: declines a batch of reviews past their deadline; returns how many this node declined. */
  runOnce(): Promise<number> {
    return expireReviews(this.ctx);
  }

  start(): void {
    this.polling.start();
  }

  stop(): Promise<void> {
    return this.polling.stop();
  }
}
