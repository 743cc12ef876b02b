/**
 * Deletes velocity counters older than the longest window a rule can read (30 days, and an hour of margin): they
 * can no longer count in any rule, and the risk tables would otherwise grow with every payment. Batches of one
 * statement each; any number of pruners may run (a row deleted twice is deleted once). It also deletes the wallet
 * token uses (the table that makes an Apple or Google Pay token single-use) whose token expired over an hour ago.
 */
import type { ServiceContext } from '../services/context.ts';
import { pruneRiskCounters } from '../services/risk/engine.ts';
import { pruneSpentWalletTokens } from '../services/wallets/wallet-tokens.ts';
import { Sweep } from './polling.ts';

export class RiskPruner extends Sweep {
  private readonly walletBatch: number;

  constructor(private readonly ctx: ServiceContext, opts: { pollMs?: number; walletBatch?: number } = {}) {
    super(ctx.logger, opts.pollMs ?? 10 * 60_000, 'risk counter pruning failed');
    this.walletBatch = opts.walletBatch ?? 10_000;
  }

  /** One pass: batches until one comes back short; returns how many rows were deleted. */
  async runOnce(): Promise<number> {
    const counters = await this.inBatches(() => pruneRiskCounters(this.ctx), 10_000);
    return counters + (await this.inBatches(() => pruneSpentWalletTokens(this.ctx, this.walletBatch), this.walletBatch));
  }
}
