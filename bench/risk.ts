/**
 * `npm run bench:risk` (and part of `npm run bench`): the gateway CPU the risk screen adds to a card SALE
 * (issue 26), at 50 active platform rules of which 3 test velocity (none matching: every rule is evaluated), for a
 * live merchant's payment with a card, e-mail, IP and session, against the screen with no rules. It runs the real
 * screen (services/risk/engine.ts: facts, BIN and IP-country lookups, the card fingerprint and keyed hashes, the
 * counter plan, the evaluation, the record's parameters) over a store that answers at once with what PostgreSQL
 * would (the counters read, no list entry): the statements' round trips are the database's time, not the
 * gateway's. Measured with process.cpuUsage, side by side in one run; target: under 150 µs added per SALE.
 */
import { screenRisk, type RiskSubject } from '../src/services/risk/engine.ts';
import type { ServiceContext } from '../src/services/context.ts';
import type { RiskRuleSet } from '../src/domain/risk/rules.ts';
import { SAMPLE_BIN_TABLE } from '../src/domain/bin-table.ts';
import { SAMPLE_IP_TABLE } from '../src/domain/risk/ip.ts';
import { newId } from '../src/domain/ids.ts';
import { emptyBacktest, tallyPayment, type StoredPaymentForBacktest } from '../src/domain/risk/backtest.ts';

const TARGET_US = 150;
const ROUNDS = Number(process.env.BENCH_RISK_ROUNDS ?? 20_000);

import { FIFTY, NONE } from './risk-rules.ts';

/** A store that answers the screen's statements at once: the rule set, then the counters as PostgreSQL reads them. */
function ctxWith(platform: RiskRuleSet): ServiceContext {
  const db = {
    kind: 'postgres',
    async query(text: string, params?: readonly unknown[]) {
      if (text.includes('FROM risk_rule_sets')) return [{ scope: 'platform', version: 1, rules: platform, updated_at: new Date(), updated_by: null }];
      if (text.includes('SELECT DISTINCT scope FROM risk_list_entries')) return [];
      if (text.includes('json_agg')) {
        const counters = JSON.parse(params![0] as string) as { id: string }[];
        return [{ counters: counters.map((c) => ({ id: c.id, value: '2', seen: false })), lists: null }];
      }
      return [];
    },
    transaction: () => { throw new Error('no transaction in the screen'); },
  };
  const key = Buffer.alloc(32, 3);
  return {
    db, clock: { now: () => new Date() }, keyring: { activeKeyId: 'k1', keys: new Map([['k1', { expose: () => key }]]) },
    binTable: SAMPLE_BIN_TABLE, ipTable: SAMPLE_IP_TABLE, logger: { error() {}, warn() {}, info() {} },
  } as unknown as ServiceContext;
}

const subject = (): RiskSubject => ({
  paymentId: newId(), merchantId: '0190f3c1-8a4e-7c55-9a4e-1f2b3c4d5e6f', channel: 's2s_card', method: 'card', intent: 'sale', amount: 2500n, currency: 'EUR',
  pan: '4111111111111111', ip: '203.0.113.7', email: 'payer@example.com', billingCountry: 'DE', sessionId: 'sess-1',
  merchantInitiated: false, sandbox: false, recurring: false, customData: { tier: 'gold' },
});

async function cpuPerScreen(platform: RiskRuleSet): Promise<number> {
  const ctx = ctxWith(platform);
  const check = await screenRisk(ctx, subject());
  if (check.evaluation.action !== 'allow' || (platform.rules.length > 0 && Object.keys(check.evaluation.velocity).length !== 3)) {
    throw new Error(`the benchmark payment should pass every rule, reading 3 counters: ${JSON.stringify(check.evaluation)}`);
  }
  for (let i = 0; i < 2_000; i += 1) await screenRisk(ctx, subject()); // warm up
  const start = process.cpuUsage();
  for (let i = 0; i < ROUNDS; i += 1) await screenRisk(ctx, subject());
  const used = process.cpuUsage(start);
  return (used.user + used.system) / ROUNDS;
}

const none = await cpuPerScreen(NONE);
const fifty = await cpuPerScreen(FIFTY);
console.log(`risk screen CPU per SALE (${ROUNDS} screens each, store answering at once): no rules ${none.toFixed(2)} µs, `
  + `50 rules with 3 velocity conditions ${fifty.toFixed(2)} µs, added by the rules ${(fifty - none).toFixed(2)} µs; target < ${TARGET_US} µs for the screen`);
if (fifty > TARGET_US) {
  console.error(`the risk screen at 50 rules took ${fifty.toFixed(2)} µs per SALE, over the ${TARGET_US} µs target`);
  process.exitCode = 1;
}

// The backtest's replay of one stored payment (facts, BIN and IP-country lookups, evaluation, tally) at the same
// 50 rules: its CPU per payment, times 1,000,000, against the 60 s target (the store's paging is apart).
const BACKTEST_TARGET_S = 60; // bench/backtest.ts measures the whole backtest over 1,000,000 payments in PostgreSQL
const stored = (i: number): StoredPaymentForBacktest => ({
  id: `p${i}`, merchantId: 'm', sandbox: false, midId: null, channel: 's2s_card', method: 'card', operation: 'purchase', auth: false, amount: BigInt(1000 + (i % 5000)), currency: 'EUR',
  status: i % 7 ? 'settled' : 'decline', createdAt: new Date(), payer: { email: 'payer@example.com', ip: '203.0.113.7', country: 'DE' }, customData: { tier: 'gold' },
  first6: '411111', brand: 'visa', merchantInitiated: false, velocity: { 'declines:card:10:': '1', 'distinct_cards:ip:60:': '2', 'distinct_cards:email:1440:': '1' },
});
const replayed = Array.from({ length: 1000 }, (_, i) => stored(i));
const tally = emptyBacktest();
const sets = [{ scope: 'platform' as const, set: FIFTY }];
for (let i = 0; i < 20_000; i += 1) tallyPayment(tally, sets, replayed[i % 1000]!, SAMPLE_BIN_TABLE, SAMPLE_IP_TABLE);
const replayStart = process.cpuUsage();
const REPLAYS = ROUNDS * 5;
for (let i = 0; i < REPLAYS; i += 1) tallyPayment(tally, sets, replayed[i % 1000]!, SAMPLE_BIN_TABLE, SAMPLE_IP_TABLE);
const replayUsed = process.cpuUsage(replayStart);
const perReplay = (replayUsed.user + replayUsed.system) / REPLAYS;
console.log(`backtest replay CPU per stored payment at 50 rules: ${perReplay.toFixed(2)} µs, so ${(perReplay).toFixed(1)} s of replay per 1,000,000 payments `
  + `(target < ${BACKTEST_TARGET_S} s for the whole backtest, the store's paging of 5,000 rows a statement apart)`);
if (perReplay > BACKTEST_TARGET_S) process.exitCode = 1;
