/**
 * The platform's rule set on first start (issue 26 item 5): card testing stopped at the door. The figures are
 * ordinary platform rules: the operator tunes them (or turns them to shadow or off) like any other rule. They
 * apply to live merchants: the sandbox's test cards are shared by every sandbox merchant, and would be blocked
 * for all of them within minutes.
 */
import type { RiskRuleSet } from './rules.ts';

export const CARD_TESTING_DEFAULTS: RiskRuleSet = {
  rules: [
    { name: 'Card testing: more than 5 declines of one card in 10 minutes', mode: 'active', when: { sandbox: false, velocity: [{ measure: 'declines', by: 'card', window_minutes: 10, more_than: 5 }] }, then: { action: 'block' } },
    { name: 'Card testing: more than 10 cards from one IP in an hour', mode: 'active', when: { sandbox: false, velocity: [{ measure: 'distinct_cards', by: 'ip', window_minutes: 60, more_than: 10 }] }, then: { action: 'block' } },
    { name: 'Card testing: more than 10 cards in one hosted-fields session in an hour', mode: 'active', when: { sandbox: false, velocity: [{ measure: 'distinct_cards', by: 'session', window_minutes: 60, more_than: 10 }] }, then: { action: 'block' } },
    { name: 'Card testing: more than 10 cards from one device in an hour', mode: 'active', when: { sandbox: false, velocity: [{ measure: 'distinct_cards', by: 'device', window_minutes: 60, more_than: 10 }] }, then: { action: 'block' } },
    { name: 'Card testing: more than 3 cards per e-mail in a day', mode: 'active', when: { sandbox: false, velocity: [{ measure: 'distinct_cards', by: 'email', window_minutes: 1440, more_than: 3 }] }, then: { action: 'block' } },
  ],
};
