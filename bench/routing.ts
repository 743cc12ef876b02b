/**
 * `npm run bench:routing` (and part of `npm run bench`): the CPU that routing adds to a card SALE, at 20 rules
 * where only the last matches (the worst case: every rule is evaluated), against routing with no rules (the
 * priority order every SALE paid before issue 15). Measured with process.cpuUsage over many routings, in one run
 * side by side; target: under 50 µs per SALE at 20 rules.
 */
import { routeCard, cardFacts } from '../src/services/card-routing.ts';
import type { ServiceContext } from '../src/services/context.ts';
import type { Merchant, Mid } from '../src/store/merchants-repo.ts';
import type { RoutingConfig, RoutingRuleDef } from '../src/domain/routing-rules.ts';

const TARGET_US = 50;
const ROUNDS = Number(process.env.BENCH_ROUTING_ROUNDS ?? 100_000);

const mids: Mid[] = Array.from({ length: 5 }, (_, i) => ({
  id: `mid-${i}`, merchantId: 'm', name: `MID ${i}`, connector: 'sandbox-card', paymentMode: 'SMS/DMS', cardOnFileSupport: false, enabled: true,
  priority: 50 - i, currencies: i === 4 ? ['JPY'] : null, minAmount: null, maxAmount: i === 3 ? '10000' : null, descriptor: null, settings: {}, sealedCredentials: null,
}));
// Nineteen rules that do not match the payment (each fails on its last condition), then one that does.
const misses: RoutingRuleDef[] = Array.from({ length: 19 }, (_, i) => ({
  name: `miss ${i}`,
  when: { currencies: ['EUR', 'USD'], amount: { min: '1', max: '5000' }, operations: ['sale'], billing_countries: ['DE', 'FR'], brands: ['visa'], custom_data: { tier: `t${i}` } },
  then: { kind: 'fallback', mid_ids: ['mid-1', 'mid-0'] },
}));
const hit: RoutingRuleDef = { name: 'split', when: { currencies: ['EUR'], bin_ranges: [{ from: '400000', to: '499999' }] }, then: { kind: 'split', shares: [{ weight: 70, mid_ids: ['mid-2', 'mid-0'] }, { weight: 30, mid_ids: ['mid-0', 'mid-2'] }] } };
const twenty: RoutingConfig = { rules: [...misses, hit], max_extra_attempts: 1 };

const ctx = { connectors: new Map([['sandbox-card', {}]]) } as unknown as ServiceContext;
const merchant = (routing: RoutingConfig | null): Merchant => ({ id: 'm', name: 'Bench', key: 'k', password: 'p', sandbox: true, notificationUrl: null, digest: 'md5', settings: {}, disabled: false, previousPassword: null, previousPasswordExpiresAt: null, routing });
const facts = () => cardFacts({ intent: 'sale', amount: 2500n, currency: 'EUR', pan: '4111111111111111', country: 'DE', recurring: false, customData: { tier: 'gold' } });

function cpuPerRouting(m: Merchant): number {
  for (let i = 0; i < 5_000; i += 1) routeCard(ctx, m, mids, facts()); // warm up
  const start = process.cpuUsage();
  for (let i = 0; i < ROUNDS; i += 1) routeCard(ctx, m, mids, facts());
  const used = process.cpuUsage(start);
  return (used.user + used.system) / ROUNDS;
}

const check = routeCard(ctx, merchant(twenty), mids, facts());
if (check.decision.matchedRule?.index !== 19) throw new Error('the benchmark payment should match the 20th rule');
const plain = cpuPerRouting(merchant(null));
const ruled = cpuPerRouting(merchant(twenty));
console.log(`routing CPU per SALE (${ROUNDS} routings each): no rules ${plain.toFixed(2)} µs, 20 rules (last matches) ${ruled.toFixed(2)} µs, added by the rules ${(ruled - plain).toFixed(2)} µs; target < ${TARGET_US} µs`);
if (ruled > TARGET_US) {
  console.error(`routing at 20 rules took ${ruled.toFixed(2)} µs per SALE, over the ${TARGET_US} µs target`);
  process.exitCode = 1;
}
