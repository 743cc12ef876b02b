/**
 * Deletes card vault rows nothing references any more (PCI DSS 3.1: keep cardholder data to the minimum), such
 * as a card collected by hosted payment fields whose processing call never came. A row younger than the
 * retention period is kept even when nothing references it yet, so a card just collected or vaulted is never
 * taken from the step about to use it. Any number of sweepers may run: each batch is one statement that
 * skips rows another holds (purgeUnreferencedCards).
 */
import type { ServiceContext } from '../services/context.ts';
import { purgeUnreferencedCards } from '../services/vault-retention.ts';
import { Sweep } from './polling.ts';

/**
 * The longest a Checkout session lives (session_expiry, at most 720 minutes). Every flow but hosted fields
 * references its card in the transaction that vaults it, and a collected card is named by its session until
 * that expires; so whether a row will ever be referenced is settled once its session could have expired.
 */
const SESSION_LIFETIME_MAX_MS = 720 * 60_000;

export interface VaultSweeperOptions {
  /** How old an unreferenced row must be before it is deleted (VAULT_RETENTION_MINUTES). */
  retentionMs: number;
  pollMs?: number;
  /** Rows deleted per statement, so no statement holds many locks for long. */
  batchSize?: number;
}

export class VaultSweeper extends Sweep {
  private readonly retentionMs: number;
  private readonly batchSize: number;
  /**
   * The cutoff of this sweeper's last complete pass. Rows created a session lifetime before it were all
   * settled then, so later passes look only at younger rows instead of walking every card kept for a payment.
   */
  private sweptUpTo: Date | undefined;

  constructor(private readonly ctx: ServiceContext, opts: VaultSweeperOptions) {
    super(ctx.logger, opts.pollMs ?? 5 * 60_000, 'card vault sweep failed');
    this.retentionMs = opts.retentionMs;
    this.batchSize = opts.batchSize ?? 500;
  }

  /** One pass: batches until one comes back short; returns how many rows were deleted. */
  async runOnce(): Promise<number> {
    const cutoff = new Date(this.ctx.clock.now().getTime() - this.retentionMs);
    const since = this.sweptUpTo && new Date(this.sweptUpTo.getTime() - SESSION_LIFETIME_MAX_MS);
    let removed = 0;
    for (;;) {
      const batch = await purgeUnreferencedCards(this.ctx.db, { cutoff, limit: this.batchSize, ...(since ? { since } : {}) });
      removed += batch.removed;
      if (batch.interrupted || this.polling.stopping) break;
      if (batch.removed < this.batchSize) {
        this.sweptUpTo = cutoff;
        break;
      }
    }
    if (removed > 0) this.ctx.logger.info({ removed }, 'card vault sweep: deleted unreferenced cards');
    return removed;
  }
}
