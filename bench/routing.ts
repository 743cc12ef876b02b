/**
 * `npm run bench:routing` (and part of `npm run bench`): the CPU that routing adds to a card SALE, at 20 rules
 * where only the last matches (the worst case: every rule is evaluated, card-country conditions looked up in the
 * BIN table, one MID with a daily cap), against routing with no rules (the priority order every SALE paid before
 * issue 15), and at 20 rules whose last routes by success rate (scores from counters already read: the one indexed
 * read of mid_outcome_stats and the cap's one guarded upsert are store round trips, not CPU here). Measured with
 * process.cpuUsage over many routings, in one run side by side; target: under 50 µs per SALE at 20 rules.
 */
import { route } from '../src/domain/routing/route.ts';
import { cardFacts } from '../src/domain/routing/facts.ts';
import type { ServiceContext } from '../src/services/context.ts';
import { usableConnectors } from '../src/services/connector-access.ts';
import type { Merchant } from '../src/domain/model/merchant.ts';
import type { Mid } from '../src/domain/model/mid.ts';
import { DEFAULT_ROUTING, type RoutingConfig, type RoutingRuleDef, type Scorer } from '../src/domain/routing/rules.ts';
import { scoreOf } from '../src/domain/routing/success-rate.ts';
import { SAMPLE_BIN_TABLE } from '../src/domain/bin-table.ts';

const TARGET_US = 50;
const ROUNDS = Number(process.env.BENCH_ROUTING_ROUNDS ?? 100_000);

const mids: Mid[] = Array.from({ length: 5 }, (_, i) => ({
  id: `mid-${i}`, merchantId: 'm', name: `MID ${i}`, connector: 'sandbox-card', paymentMode: 'SMS/DMS', cardOnFileSupport: false, enabled: true,
  priority: 50 - i, currencies: i === 4 ? ['JPY'] : null, minAmount: null, maxAmount: i === 3 ? '10000' : null, dailyCaps: i === 2 ? { EUR: { max_count: 100_000, max_amount: '1000000.00' } } : null, descriptor: null, settings: {}, sealedCredentials: null,
}));
// Nineteen rules that do not match the payment (each fails on its last condition), then one that does.
const misses: RoutingRuleDef[] = Array.from({ length: 19 }, (_, i) => ({
  name: `miss ${i}`,
  when: { currencies: ['EUR', 'USD'], amount: { min: '1', max: '5000' }, operations: ['sale'], billing_countries: ['DE', 'FR'], brands: ['visa'], card_countries: ['US', 'GB'], custom_data: { tier: `t${i}` } },
  then: { kind: 'fallback', mid_ids: ['mid-1', 'mid-0'] },
}));
const hit: RoutingRuleDef = { name: 'split', when: { currencies: ['EUR'], bin_ranges: [{ from: '400000', to: '499999' }] }, then: { kind: 'split', shares: [{ weight: 70, mid_ids: ['mid-2', 'mid-0'] }, { weight: 30, mid_ids: ['mid-0', 'mid-2'] }] } };
const twenty: RoutingConfig = { rules: [...misses, hit], max_extra_attempts: 1 };
const bySuccess: RoutingConfig = { rules: [...misses, { ...hit, name: 'success', then: { kind: 'success_rate', mid_ids: ['mid-2', 'mid-0', 'mid-1'] } }], max_extra_attempts: 1 };
const counts = new Map(['mid-0', 'mid-1', 'mid-2'].map((id, i) => [id, { approved: 40 + i * 10, total: 80, updatedAt: new Date(Date.now() - 600_000) }]));
const now = new Date();
const scorer: Scorer = (midId, params) => scoreOf(midId, counts.get(midId), now, 60, params);

const ctx = { connectors: new Map([['sandbox-card', {}]]) } as unknown as ServiceContext;
const merchant = (routing: RoutingConfig | null): Merchant => ({ id: 'm', name: 'Bench', key: 'k', password: 'p', sandbox: true, notificationUrl: null, digest: 'md5', settings: {}, disabled: false, previousPassword: null, previousPasswordExpiresAt: null, routing });
/** What the route step does per SALE without I/O: the usable connectors, then the one picker (domain/routing/route.ts). */
const routeCard = (m: Merchant, score?: Scorer, draw: () => number = Math.random) =>
  route(facts(), mids, m.routing ?? DEFAULT_ROUTING, { connectors: usableConnectors(ctx, m), draw, ...(score ? { scores: score } : {}) });
const facts = () => cardFacts({ intent: 'sale', amount: 2500n, currency: 'EUR', pan: '4111111111111111', country: 'DE', recurring: false, customData: { tier: 'gold' } }, SAMPLE_BIN_TABLE);

function cpuPerRouting(m: Merchant, score?: Scorer): number {
  for (let i = 0; i < 5_000; i += 1) routeCard(m, score); // warm up
  const start = process.cpuUsage();
  for (let i = 0; i < ROUNDS; i += 1) routeCard(m, score);
  const used = process.cpuUsage(start);
  return (used.user + used.system) / ROUNDS;
}

const check = routeCard(merchant(twenty));
if (check.decision.matchedRule?.index !== 19) throw new Error('the benchmark payment should match the 20th rule');
const scored = routeCard(merchant(bySuccess), scorer, () => 0.99);
if (scored.decision.candidates?.[0] !== 'mid-2' || scored.decision.scores?.length !== 3) throw new Error('the success-rate rule should rank mid-2 first');
const plain = cpuPerRouting(merchant(null));
const ruled = cpuPerRouting(merchant(twenty));
const success = cpuPerRouting(merchant(bySuccess), scorer);
console.log(`routing CPU per SALE (${ROUNDS} routings each): no rules ${plain.toFixed(2)} µs, 20 rules (last matches) ${ruled.toFixed(2)} µs, `
  + `added by the rules ${(ruled - plain).toFixed(2)} µs; 20 rules, the last by success rate ${success.toFixed(2)} µs; target < ${TARGET_US} µs`);
for (const [name, us] of [['20 rules', ruled], ['20 rules by success rate', success]] as const) {
  if (us > TARGET_US) {
    console.error(`routing at ${name} took ${us.toFixed(2)} µs per SALE, over the ${TARGET_US} µs target`);
    process.exitCode = 1;
  }
}
