/**
 * The receipt mailer (issue 31 item 14): sends the e-mailed receipts that the writes settling payments queued and no
 * receipt page sent first (S2S and alternative-method payments, a payer who closed the tab). Any number of mailers
 * may run: each queued receipt is claimed by one (services/mail/receipts.ts).
 */
import type { ServiceContext } from '../services/context.ts';
import { sendQueuedReceipts } from '../services/mail/receipts.ts';
import { Sweep } from './polling.ts';

export class ReceiptMailer extends Sweep {
  constructor(private readonly ctx: ServiceContext, opts: { pollMs?: number } = {}) {
    super(ctx.logger, opts.pollMs ?? 2_000, 'sending queued receipt e-mails failed');
  }

  /** One pass: batches until one comes back short; answers how many receipts it claimed. */
  runOnce(): Promise<number> {
    return this.inBatches(() => sendQueuedReceipts(this.ctx), 50);
  }
}
