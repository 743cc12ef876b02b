/**
 * The double-entry ledger's rules (issue 27), pure: the accounts, and per money event the balanced entries it
 * posts, as one table. An entry's amount is signed: positive debits its account, negative credits it; every event
 * posts one debit and one credit of the same amount, so every currency's entries sum to zero by construction
 * (and the property tests check it of any sequence).
 *
 * Balances are sums of entries, debit positive. The merchant's accounts are what the platform owes the merchant
 * (liabilities, credit balances): pending (captured, not yet settled), available (settled, payable), reserve (held
 * back for N days); fees is what the merchant owes in fees not yet settled (a debit balance). The platform's
 * accounts: fee revenue, the bank the merchants are paid from, adjustments; and one receivable per acquirer MID
 * (what the acquirer owes for the captures it took).
 */
import type { PaymentStatus } from '../payment-state.ts';

export type AccountKind =
  | 'merchant_pending' | 'merchant_available' | 'merchant_reserve' | 'merchant_fees'
  | 'platform_fee_revenue' | 'platform_bank' | 'platform_adjustments'
  | 'acquirer_receivable'
  /** What the acquirer reported settled for the MID, to arrive with its batch's payout (reconciliation, issue 28). */
  | 'acquirer_settled'
  /** The fees acquirers withheld: the platform's cost (reconciliation, issue 28). */
  | 'platform_acquirer_fees';

export type EventKind =
  | 'sale' | 'payout' | 'refund' | 'void' | 'reversal' | 'chargeback' | 'chargeback_reversal'
  | 'fee' | 'fee_refund'
  | 'settlement' | 'settlement_fees' | 'settlement_return' | 'reserve_hold' | 'reserve_release' | 'merchant_payout'
  | 'adjustment_credit' | 'adjustment_debit'
  | 'acquirer_settlement' | 'acquirer_settlement_return' | 'acquirer_fee';

/** event -> [the account debited, the account credited]. Nothing else decides where money goes. */
export const POSTING_RULES: Readonly<Record<EventKind, readonly [debit: AccountKind, credit: AccountKind]>> = {
  sale: ['acquirer_receivable', 'merchant_pending'], // captured: the acquirer owes it, the merchant is owed it
  payout: ['merchant_available', 'acquirer_receivable'], // paid to a payer out of the merchant's funds
  refund: ['merchant_pending', 'acquirer_receivable'],
  void: ['merchant_pending', 'acquirer_receivable'], // a sale cancelled before it cleared: the sale undone
  reversal: ['merchant_pending', 'acquirer_receivable'], // a settled debit reversed
  chargeback: ['merchant_available', 'acquirer_receivable'],
  chargeback_reversal: ['acquirer_receivable', 'merchant_available'],
  fee: ['merchant_fees', 'platform_fee_revenue'],
  fee_refund: ['platform_fee_revenue', 'merchant_fees'], // a voided or reversed payment's fees given back
  settlement: ['merchant_pending', 'merchant_available'], // pending -> available after T+N days
  settlement_fees: ['merchant_available', 'merchant_fees'], // the fees deducted at settlement
  settlement_return: ['merchant_available', 'merchant_pending'], // refunds above a period's captures, from available
  reserve_hold: ['merchant_available', 'merchant_reserve'],
  reserve_release: ['merchant_reserve', 'merchant_available'],
  merchant_payout: ['merchant_available', 'platform_bank'],
  adjustment_credit: ['platform_adjustments', 'merchant_available'],
  adjustment_debit: ['merchant_available', 'platform_adjustments'],
  // Reconciliation (issue 28): a matched report row clears the receivable into what the acquirer settled, and
  // the fee it withheld moves from that to the platform's cost; a batch's settled balance is then its payout.
  acquirer_settlement: ['acquirer_settled', 'acquirer_receivable'], // a capture (or chargeback reversal) settled
  acquirer_settlement_return: ['acquirer_receivable', 'acquirer_settled'], // a refund or chargeback settled
  acquirer_fee: ['platform_acquirer_fees', 'acquirer_settled'],
};

export const EVENT_KINDS = Object.keys(POSTING_RULES) as EventKind[];

/** Whose accounts an event posts to. */
export interface Parties {
  merchantId: string;
  /** The acquirer's MID (or, for an APM payment without one, its connector). */
  acquirer?: string;
}

export function accountName(kind: AccountKind, parties: Parties): string {
  switch (kind) {
    case 'merchant_pending': return `merchant:${parties.merchantId}:pending`;
    case 'merchant_available': return `merchant:${parties.merchantId}:available`;
    case 'merchant_reserve': return `merchant:${parties.merchantId}:reserve`;
    case 'merchant_fees': return `merchant:${parties.merchantId}:fees`;
    case 'platform_fee_revenue': return 'platform:fee_revenue';
    case 'platform_bank': return 'platform:bank';
    case 'platform_adjustments': return 'platform:adjustments';
    case 'acquirer_receivable': return `acquirer:${parties.acquirer ?? 'unknown'}:receivable`;
    case 'acquirer_settled': return `acquirer:${parties.acquirer ?? 'unknown'}:settled`;
    case 'platform_acquirer_fees': return 'platform:acquirer_fees';
  }
}

export interface MoneyEvent {
  kind: EventKind;
  /** Minor units, never negative (the rule says which way it goes). */
  amount: bigint;
}

export interface LedgerEntry {
  account: string;
  currency: string;
  /** Debit positive, credit negative. */
  amount: bigint;
  event: EventKind;
  /** What caused it, unique with event and account: the transaction, or the settlement, payout, adjustment. */
  ref: string;
  paymentId: string | null;
}

/** The balanced entries of events in one currency for one cause; zero amounts post nothing. */
export function entriesOf(events: readonly MoneyEvent[], on: Parties & { currency: string; ref: string; paymentId: string | null }): LedgerEntry[] {
  const out: LedgerEntry[] = [];
  for (const e of events) {
    if (e.amount < 0n) throw new Error(`a ${e.kind} of ${e.amount}: amounts are never negative`);
    if (e.amount === 0n) continue;
    const [debit, credit] = POSTING_RULES[e.kind];
    // Plain literals, no spreads: this runs on every SALE.
    out.push(
      { account: accountName(debit, on), currency: on.currency, amount: e.amount, event: e.kind, ref: on.ref, paymentId: on.paymentId },
      { account: accountName(credit, on), currency: on.currency, amount: -e.amount, event: e.kind, ref: on.ref, paymentId: on.paymentId },
    );
  }
  return out;
}

// --- what a payment's change means ------------------------------------------------------------------------

/** The money a payment has moved, as its row says. */
export interface MoneyState {
  status: PaymentStatus;
  capturedAmount: bigint;
  refundedAmount: bigint;
}

/**
 * The gross money events of a payment's change from `before` to `after` (fees are priced by the caller: each
 * gross event of FEE_OPERATION_OF has a fee). Derived from the row alone, so every path that changes a payment
 * (an attempt's outcome, a capture, a refund, a void, a reversal, the acquirer's notification, the re-check)
 * posts the same way. `payout`: the payment sends money to its payer (a credit), not the other way.
 */
export function moneyEventsOf(before: MoneyState, after: MoneyState, payout: boolean): MoneyEvent[] {
  const events: MoneyEvent[] = [];
  const captured = after.capturedAmount - before.capturedAmount;
  if (captured > 0n && (after.status === 'settled' || after.status === 'refund')) events.push({ kind: payout ? 'payout' : 'sale', amount: captured });
  const refunded = after.refundedAmount - before.refundedAmount;
  if (refunded > 0n) events.push({ kind: 'refund', amount: refunded });
  if (before.status === 'settled' && (after.status === 'void' || after.status === 'reversal')) {
    events.push({ kind: after.status, amount: after.capturedAmount - after.refundedAmount });
  }
  if (before.status !== 'chargeback' && after.status === 'chargeback') events.push({ kind: 'chargeback', amount: after.capturedAmount - after.refundedAmount });
  return events;
}

/** Which fee schedule operation prices a gross event; events not listed carry no fee of their own. */
export const FEE_OPERATION_OF: Readonly<Partial<Record<EventKind, 'sale' | 'refund' | 'payout' | 'chargeback'>>> = {
  sale: 'sale', payout: 'payout', refund: 'refund', chargeback: 'chargeback',
};

/** Events that give the payment's fees back (a sale undone before it cleared). */
export const GIVES_FEES_BACK: ReadonlySet<EventKind> = new Set(['void', 'reversal']);

// --- balances ---------------------------------------------------------------------------------------------

export const balanceKey = (account: string, currency: string): string => `${account} ${currency}`;

/** Running balances after the entries (what the store keeps with each write). */
export function applyEntries(balances: Map<string, bigint>, entries: readonly LedgerEntry[]): Map<string, bigint> {
  for (const e of entries) {
    const key = balanceKey(e.account, e.currency);
    balances.set(key, (balances.get(key) ?? 0n) + e.amount);
  }
  return balances;
}

/** A merchant's balances in one currency as the merchant reads them: what is owed to them, fees as owed by them. */
export interface MerchantBalances {
  pending: bigint;
  available: bigint;
  reserve: bigint;
  /** Fees accrued and not yet settled (deducted from the next settlement). */
  fees: bigint;
  /** pending - fees + available + reserve: what the platform owes the merchant in all. */
  total: bigint;
}

/** From the ledger's sums (debit positive) of the merchant's four accounts. */
export function merchantBalances(sums: { pending: bigint; available: bigint; reserve: bigint; fees: bigint }): MerchantBalances {
  const pending = -sums.pending, available = -sums.available, reserve = -sums.reserve, fees = sums.fees;
  return { pending, available, reserve, fees, total: pending - fees + available + reserve };
}

// --- a payment's money ------------------------------------------------------------------------------------

/** What a payment has cost and brought the merchant so far, from its entries (issue 27 item 7). */
export interface PaymentMoney {
  /** The fees charged, net of fees given back. */
  fee: bigint;
  /** What the merchant is owed for the payment after its fees (captured - refunded - fees; a payout's is negative). */
  net: bigint;
}

/** A payment's fee and net amount from its entries (those of the merchant's fees, pending and available accounts). */
export function paymentMoneyOf(entries: readonly Pick<LedgerEntry, 'account' | 'amount'>[], merchantId: string): PaymentMoney {
  const fees = accountName('merchant_fees', { merchantId });
  const pending = accountName('merchant_pending', { merchantId });
  const available = accountName('merchant_available', { merchantId });
  let fee = 0n, owed = 0n;
  for (const e of entries) {
    if (e.account === fees) fee += e.amount;
    else if (e.account === pending || e.account === available) owed -= e.amount;
  }
  return { fee, net: owed - fee };
}
