/**
 * The rule set the risk benchmarks screen with (issue 26): 50 active platform rules, of which 3 test velocity,
 * none matching a bench SALE, so every rule is evaluated. bench/risk.ts times the screen with it; bench/run.ts the
 * SALE's throughput with it saved as the platform's rules (bench/server.ts /risk/fifty).
 */
import type { RiskRule, RiskRuleSet } from '../src/domain/risk/rules.ts';

// 47 rules that each fail on their last condition (the earlier ones hold), then 3 velocity rules under their figure.
const misses: RiskRule[] = Array.from({ length: 47 }, (_, i) => ({
  name: `miss ${i}`, mode: 'active',
  when: { currencies: ['EUR', 'USD'], amount: { min: '1', max: '5000' }, brands: ['visa'], card_countries: ['US', 'GB'], ip_countries: ['DE', 'US'], email_domains: ['example.com', `shop${i}.example`], custom_data: { tier: `t${i}` } },
  then: i % 2 ? { action: 'block' } : { action: 'score', points: 10 },
}));
const velocity: RiskRule[] = [
  { name: 'declines per card', mode: 'active', when: { velocity: [{ measure: 'declines', by: 'card', window_minutes: 10, more_than: 5 }] }, then: { action: 'block' } },
  { name: 'cards per IP', mode: 'active', when: { velocity: [{ measure: 'distinct_cards', by: 'ip', window_minutes: 60, more_than: 10 }] }, then: { action: 'block' } },
  { name: 'cards per e-mail', mode: 'active', when: { velocity: [{ measure: 'distinct_cards', by: 'email', window_minutes: 1440, more_than: 3 }] }, then: { action: 'review' } },
];
export const FIFTY: RiskRuleSet = { rules: [...misses, ...velocity], score_thresholds: { review: 90 } };
export const NONE: RiskRuleSet = { rules: [] };
