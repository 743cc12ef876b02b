/**
 * Backtests (issue 26 item 4): a draft rule set run over stored payments, answering what it would have blocked,
 * reviewed and allowed, with examples and the approved volume it would have lost. Pure: the store pages the
 * payments (with the counters their screen read), this turns each into facts and tallies the verdicts.
 *
 * A stored payment is replayed from what was kept: its amount, currency, channel, operation, payer, custom data,
 * card BIN (first six digits) and brand, MID, merchant; velocity conditions read the counter values its own screen
 * read (the same measure, key and window), and a condition on a counter it did not read cannot be replayed: its
 * rule counts under `not_replayable` and is skipped, as a rule that fails at a payment's screen is. Lists are not
 * replayed (a backtest is about rules).
 */
import { evaluateRisk, emailDomain, type RiskFacts, type RuleScope } from './evaluate.ts';
import type { RiskAction, RiskRuleSet } from './rules.ts';
import { parseIp, type IpCountryTable } from './ip.ts';
import type { BinTable } from '../bin-table.ts';
import { cardBrandByPrefix } from '../card.ts';
import { intentOf, isRecurring, type Operation } from '../operations.ts';

export interface StoredPaymentForBacktest {
  id: string;
  merchantId: string;
  sandbox: boolean;
  midId: string | null;
  channel: string;
  /** card, or the alternative method's key. */
  method: string;
  operation: Operation;
  auth: boolean;
  amount: bigint;
  currency: string;
  status: string;
  createdAt: Date;
  payer: { email?: string; ip?: string; country?: string };
  customData: Record<string, unknown> | null;
  first6: string | null;
  brand: string | null;
  merchantInitiated: boolean;
  /** The counter values the payment's screen read (velocityKey -> value); none when it was not screened. */
  velocity: Record<string, string> | null;
}

/** Money is summed per currency, in minor units. */
export type Volume = Record<string, bigint>;

export interface BacktestResult {
  payments: number;
  counts: Record<RiskAction, number>;
  /** Up to `examples` payments per outcome but allow: id, amount, currency, the reason. */
  examples: Record<Exclude<RiskAction, 'allow'>, { payment_id: string; amount: bigint; currency: string; status: string; reason: string }[]>;
  /** Payments the acquirer approved that the draft would have blocked (the volume lost), per currency. */
  lost_approved: { count: number; volume: Volume };
  /** Payments held for review the draft would have, among the approved ones. */
  reviewed_approved: { count: number; volume: Volume };
  /** Rules that could not be replayed on some payments (a counter their screen did not read), by rule name. */
  not_replayable: Record<string, number>;
}

const APPROVED = new Set(['pending', 'settled', 'refund', 'reversal', 'void', 'chargeback']);
const MAX_EXAMPLES = 10;

export function emptyBacktest(): BacktestResult {
  return {
    payments: 0, counts: { allow: 0, block: 0, review: 0, require_3ds: 0 },
    examples: { block: [], review: [], require_3ds: [] },
    lost_approved: { count: 0, volume: {} }, reviewed_approved: { count: 0, volume: {} }, not_replayable: {},
  };
}

function factsOf(p: StoredPaymentForBacktest, bins: BinTable, ips: IpCountryTable): RiskFacts {
  const bin = p.first6 ?? undefined;
  const issuer = bin ? bins.lookup(bin) : undefined;
  const ip = parseIp(p.payer.ip);
  return {
    merchantId: p.merchantId, midId: p.midId, channel: p.channel, method: p.method,
    intent: intentOf(p), money: { minor: p.amount, currency: p.currency }, bin, brand: (bin ? cardBrandByPrefix(bin) : undefined) ?? issuer?.brand ?? p.brand ?? undefined,
    cardCountry: issuer?.country, billingCountry: p.payer.country, ip, ipCountry: ips.country(ip), emailDomain: emailDomain(p.payer.email),
    recurring: isRecurring(p.operation), merchantInitiated: p.merchantInitiated, sandbox: p.sandbox, customData: p.customData,
  };
}

const add = (v: Volume, currency: string, amount: bigint): void => { v[currency] = (v[currency] ?? 0n) + amount; };

/** Replays one stored payment through the rule sets (the draft among them) and adds it to the tally. */
export function tallyPayment(result: BacktestResult, sets: readonly { scope: RuleScope; set: RiskRuleSet }[], p: StoredPaymentForBacktest, bins: BinTable, ips: IpCountryTable): void {
  const velocity = new Map(Object.entries(p.velocity ?? {}).map(([k, v]) => [k, BigInt(v)]));
  const evaluation = evaluateRisk(sets, factsOf(p, bins, ips), { velocity, lists: [] });
  result.payments += 1;
  result.counts[evaluation.action] += 1;
  for (const f of evaluation.failed) result.not_replayable[f.name] = (result.not_replayable[f.name] ?? 0) + 1;
  if (evaluation.action === 'allow') return;
  const examples = result.examples[evaluation.action];
  if (examples.length < MAX_EXAMPLES) examples.push({ payment_id: p.id, amount: p.amount, currency: p.currency, status: p.status, reason: evaluation.reason });
  if (!APPROVED.has(p.status)) return;
  const bucket = evaluation.action === 'block' ? result.lost_approved : evaluation.action === 'review' ? result.reviewed_approved : undefined;
  if (bucket) {
    bucket.count += 1;
    add(bucket.volume, p.currency, p.amount);
  }
}
