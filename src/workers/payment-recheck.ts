/**
 * Re-asks the connector about payments left in flight (the process died between the connector call and
 * the write of its answer), as Hyperswitch's payment sync does: card authorizations through the card
 * connector, APM initiations through the merchant's APM provider. A payment waiting for its payer (a QR code,
 * a provider page) has no operation in flight and is never touched. Several instances may run: each claims a
 * payment by bumping its updated_at with a compare-and-set before touching it.
 */
import type { ServiceContext } from '../services/context.ts';
import { findStalledPayments } from '../services/queries/payments.ts';
import { flagForOperator } from '../services/operator-write.ts';
import type { Payment } from '../domain/model/payment.ts';
import { findMerchantById, listMids } from '../services/queries/merchants.ts';
import { applyOutcome } from '../services/attempt/index.ts';
import { intentOf, recheckBy } from '../domain/operations.ts';
import { recheckInitiation } from '../services/apm/payments.ts';
import { Sweep } from './polling.ts';
import { inquiryRequest, midAccess } from '../services/connector-access.ts';

export interface RecheckOptions {
  /** How long an operation may stay in flight before it is re-checked. */
  staleAfterMs?: number;
  /**
   * How long after it started an operation the connector still cannot account for is handed to an operator
   * (its inquiry keeps answering nothing, or the connector is gone); until then it is re-checked at every pass.
   */
  operatorAfterMs?: number;
  pollMs?: number;
  batchSize?: number;
}

export class PaymentRecheck extends Sweep {
  private readonly staleAfterMs: number;
  private readonly operatorAfterMs: number;
  private readonly batchSize: number;

  constructor(private readonly ctx: ServiceContext, opts: RecheckOptions = {}) {
    super(ctx.logger, opts.pollMs ?? 30_000, 'payment re-check pass failed');
    this.staleAfterMs = opts.staleAfterMs ?? 120_000;
    this.operatorAfterMs = opts.operatorAfterMs ?? 3_600_000;
    this.batchSize = opts.batchSize ?? 50;
  }

  /** One pass; returns how many payments were resolved. */
  async runOnce(): Promise<number> {
    const now = this.ctx.clock.now();
    const stalled = await findStalledPayments(this.ctx.db, new Date(now.getTime() - this.staleAfterMs), this.batchSize);
    let resolved = 0;
    for (const payment of stalled) {
      try {
        if (await this.resolve(payment, now)) resolved++;
      } catch (err) {
        this.ctx.logger.error({ paymentId: payment.id, err: (err as Error).message }, 'payment re-check failed');
      }
    }
    return resolved;
  }

  private async claim(payment: Payment, now: Date): Promise<boolean> {
    const rows = await this.ctx.db.query('UPDATE payments SET updated_at = $3 WHERE id = $1 AND updated_at = $2 AND pending_operation IS NOT NULL RETURNING id', [payment.id, payment.updatedAt, now]);
    return rows.length === 1;
  }

  private async resolve(payment: Payment, now: Date): Promise<boolean> {
    const operation = payment.pendingOperation ?? '';
    // Card authorizations and APM initiations (the provider's payment, before any payer action) can be asked
    // about; follow-ups and payouts go to an operator (domain/operations.ts IN_FLIGHT).
    const askable = recheckBy(operation);
    if (!askable) return this.handToOperator(payment, operation, now);
    if (!(await this.claim(payment, now))) return false;
    const claimed = { ...payment, updatedAt: now };
    const resolved = askable === 'apm'
      ? (await recheckInitiation(this.ctx, claimed)).kind !== 'processing'
      : await this.resolveCard(claimed, operation);
    if (!resolved && (await this.inFlightSince(claimed)) <= now.getTime() - this.operatorAfterMs) await this.handToOperator(claimed, operation, now);
    return resolved;
  }

  /** When the operation in flight started: its transaction's creation (the claims keep moving updated_at). */
  private async inFlightSince(payment: Payment): Promise<number> {
    const [row] = await this.ctx.db.query<{ created_at: Date | string }>('SELECT created_at FROM transactions WHERE id = $1', [payment.details.lastTransId ?? '']);
    return new Date(row?.created_at ?? payment.createdAt).getTime();
  }

  /**
   * A follow-up whose answer was lost moved money or not: never guessed. The payment keeps its operation in
   * flight (and any refund reservation) and is flagged once for an operator, which also stops the re-checks.
   */
  private async handToOperator(payment: Payment, operation: string, now: Date): Promise<false> {
    const flagged = await flagForOperator(this.ctx.db, payment, now);
    if (flagged) this.ctx.logger.warn({ paymentId: payment.id, operation }, 'operation left in flight; needs an operator');
    return false;
  }

  private async resolveCard(payment: Payment, operation: string): Promise<boolean> {
    const merchant = await findMerchantById(this.ctx.db, this.ctx.keyring, payment.merchantId);
    const mid = (await listMids(this.ctx.db, payment.merchantId)).find((m) => m.id === payment.midId);
    const connector = mid && this.ctx.connectors.get(mid.connector);
    if (!merchant || !connector) return false;
    const outcome = await connector.inquire(inquiryRequest(payment), midAccess(this.ctx, mid));
    if (!outcome) return false;
    const transId = payment.details.lastTransId ?? payment.id;
    const step = await applyOutcome(this.ctx, { merchant, payment, transId, operation, intent: intentOf(payment) }, outcome);
    return step.kind !== 'processing';
  }
}
