/**
 * docs/operators/money.md cannot drift: its table of entries per event is POSTING_RULES, and its worked example's
 * fees and balances are what the gateway's own rules compute (fee schedule parsing and pricing, the events'
 * entries, the merchant's balances).
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parseFeeRows, quoteFee, type FeeRowInput } from '../../src/domain/ledger/fees.ts';
import { applyEntries, balanceKey, entriesOf, POSTING_RULES, merchantBalances, type AccountKind, type MoneyEvent } from '../../src/domain/ledger/postings.ts';
import type { CardRegion } from '../../src/domain/ledger/regions.ts';
import { formatAmount, parseAmount } from '../../src/domain/money.ts';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../..');
const page = readFileSync(path.join(root, 'docs/operators/money.md'), 'utf8');
const between = (tag: string) => page.slice(page.indexOf(`<!-- ${tag} -->`), page.indexOf(`<!-- /${tag} -->`));

const ACCOUNT_WORDS: Record<AccountKind, string> = {
  merchant_pending: 'merchant pending', merchant_available: 'merchant available', merchant_reserve: 'merchant reserve', merchant_fees: 'merchant fees',
  platform_fee_revenue: 'platform fee revenue', platform_bank: 'platform bank', platform_adjustments: 'platform adjustments', acquirer_receivable: 'acquirer receivable',
  acquirer_settled: 'acquirer settled', platform_acquirer_fees: 'platform acquirer fees',
};

describe('docs/operators/money.md', () => {
  it('its table of entries per event is the posting rules', () => {
    const rows = [...between('posting-rules').matchAll(/^\| `(\w+)` \| ([^|]+) \| ([^|]+) \|/gm)].map((m) => [m[1], m[2]!.trim(), m[3]!.trim()]);
    const rules = Object.entries(POSTING_RULES).map(([event, [debit, credit]]) => [event, ACCOUNT_WORDS[debit], ACCOUNT_WORDS[credit]]);
    assert.deepEqual(rows, rules);
  });

  it('its worked example\'s fees and balances are computed', () => {
    const json = /```json\n([\s\S]*?)```/.exec(between('money-example'))![1]!;
    const example = JSON.parse(json) as { rows: FeeRowInput[]; events: { payment: string; event: 'sale' | 'refund'; amount: string; region: CardRegion; fee: string }[]; balances: Record<string, string> };
    const parsed = parseFeeRows(example.rows);
    assert.ok('rows' in parsed);
    const schedule = { id: 'doc', merchantId: null, effectiveFrom: new Date(0), rows: parsed.rows };
    const currency = example.balances.currency!;
    const balances = new Map<string, bigint>();
    for (const e of example.events) {
      const amount = (parseAmount(e.amount, currency) as { ok: true; money: { minor: bigint } }).money.minor;
      const fee = quoteFee(schedule, { operation: e.event, method: 'visa', region: e.region, currency, amount }).fee;
      assert.equal(formatAmount(fee, currency), e.fee, `${e.payment} ${e.event}`);
      const events: MoneyEvent[] = [{ kind: e.event, amount }, { kind: 'fee', amount: fee }];
      applyEntries(balances, entriesOf(events, { merchantId: 'm', acquirer: 'mid', currency, ref: `${e.payment}/${e.event}`, paymentId: e.payment }));
    }
    const sum = (kind: string) => balances.get(balanceKey(`merchant:m:${kind}`, currency)) ?? 0n;
    const b = merchantBalances({ pending: sum('pending'), available: sum('available'), reserve: sum('reserve'), fees: sum('fees') });
    assert.deepEqual(
      { currency, pending: formatAmount(b.pending, currency), available: formatAmount(b.available, currency), reserve: formatAmount(b.reserve, currency), fees: formatAmount(b.fees, currency), total: formatAmount(b.total, currency) },
      example.balances,
    );
  });
});
