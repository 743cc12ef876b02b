/**
 * Every condition a risk rule accepts, over HTTP with signed requests, on both stores (issue 26 item 2): for each
 * condition kind of the rule schema one active block rule, one payment that matches it (declined by risk
 * management, the rule named as the reason) and one that does not (approved); for each list kind one block-list
 * entry, likewise; for each velocity measure and dimension one rule over payments sharing (or not) the key; and the
 * window's edges (just inside, just outside) on the test clock, for a minute-bucket and an hour-bucket window.
 * The BIN table and the IP-to-country table are the samples that ship (4111 11: US visa; 4601 5418: GB visa;
 * 192.0.2.0/24 US, 198.51.100.0/24 GB, 203.0.113.0/24 DE).
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { newId } from '../../src/domain/ids.ts';
import { storeKinds } from '../support/stores.ts';
import { startTestGateway, type TestGateway, type TestMerchant } from '../support/gateway.ts';
import { adminCall, tokenFor } from '../admin/config-support.ts';
import { ManualClock } from '../../src/domain/clock.ts';
import { luhnValid } from '../../src/domain/card.ts';
import { ScheduleRunner } from '../../src/workers/schedule-runner.ts';
import type { CardConnector } from '../../src/connectors/types.ts';
import { sale } from '../s2s-card/support.ts';
import { initSale, newSchedule, recurringSale } from '../recurring/support.ts';
import { ledger } from '../schedules/support.ts';
import { collect, newOrder, openToken, processing, processingBody } from '../hosted-fields/support.ts';
import * as apm from '../apm/support.ts';

const RISK_TEXT = 'Declined by risk management';
const US_VISA = '4111111111111111';
const GB_VISA = '4601541833776519';
const MASTERCARD = '5555555555554444';

/** A card of the test's own (Luhn-valid, visa by its prefix): card counters are platform-wide. */
let cards = 0;
function freshCard(): string {
  const body = `4000${String(process.pid % 1000).padStart(3, '0')}${String(++cards).padStart(8, '0')}`;
  for (let d = 0; d <= 9; d++) if (luhnValid(body + d)) return body + d;
  throw new Error('no check digit');
}
let keys = 0;
const freshEmail = () => `risk-${process.pid}-${++keys}-${Date.now()}@example.com`;
const freshIp = () => `10.26.${Math.floor(++keys / 250) % 250}.${(keys % 250) + 1}`;

/** What a payment answered: declined by the risk screen (and why), or not. */
interface Outcome { risk: boolean; status: string; reason?: string; paymentId?: string }

for (const { kind, skip } of await storeKinds()) {
  describe(`every risk condition over HTTP (${kind})`, { skip }, () => {
    let t: TestGateway;
    const clock = new ManualClock('2030-01-15T10:00:30Z');
    let operator: string;
    const call = (method: string, path: string, body?: unknown) => adminCall(t.baseUrl, method, path, operator, body);

    before(async () => {
      t = await startTestGateway(kind, { clock, adminToken: `risk-conditions-${kind}` });
      operator = await tokenFor(t, 'operator');
      // A live merchant's acquirer: the sandbox's card engine under another name (a live merchant may not use the sandbox connector).
      const connectors = t.gateway.ctx.connectors as Map<string, CardConnector>;
      connectors.set('acquirer-under-test', connectors.get('sandbox-card')!);
    });
    after(() => t?.close());

    const merchant = (o: { sandbox?: boolean; midId?: string } = {}): Promise<TestMerchant> => t.addMerchant({
      notificationUrl: 'http://127.0.0.1:9/callbacks', sandbox: o.sandbox ?? true, settings: { payerRetries: { maxAttempts: 50 } },
      mids: [{ paymentMode: 'SMS/DMS', ...(o.midId ? { id: o.midId } : {}), ...(o.sandbox === false ? { connector: 'acquirer-under-test' } : {}) }],
    });

    async function saveRules(scope: string, rules: object[]): Promise<void> {
      const current = await call('GET', `/admin/v1/risk/rules/${scope}`);
      assert.equal(current.status, 200, current.text);
      const res = await call('PUT', `/admin/v1/risk/rules/${scope}`, { version: current.body.version, rules: { rules } });
      assert.equal(res.status, 200, res.text);
    }
    const block = (name: string, when: object) => ({ name, mode: 'active', when, then: { action: 'block' } });
    /** Saves a platform rule for the span of fn, then the platform's rule set as it was. */
    async function withPlatformRule(rule: object, fn: () => Promise<void>): Promise<void> {
      const before = await call('GET', '/admin/v1/risk/rules/platform');
      await saveRules('platform', [...before.body.rules.rules, rule]);
      try {
        await fn();
      } finally {
        await saveRules('platform', before.body.rules.rules);
      }
    }

    // --- the ways a payment is made here ---------------------------------------------------------------

    /** A signed S2S CARD SALE (the docs' sample with these fields). */
    async function cardSale(m: TestMerchant, fields: Record<string, unknown> = {}): Promise<Outcome> {
      const res = await sale(t, fields, m);
      assert.ok(res.body?.trans_id, res.text);
      return { risk: res.body.decline_reason === RISK_TEXT, status: res.body.status, reason: res.body.decline_reason, paymentId: res.body.trans_id };
    }
    const apmMethod = apm.representative('extra_fields', 's2s_apm');
    const apmParameters = Object.fromEntries(apmMethod.params.filter((p) => p.collectOnPage).map((p) => [p.name, 'ABC12345']));
    async function apmSale(m: TestMerchant, fields: Record<string, unknown> = {}): Promise<Outcome> {
      const res = await apm.sale(t, apmMethod.key, { parameters: apmParameters, ...fields }, m);
      assert.ok(res.body?.trans_id, res.text);
      return { risk: res.body.decline_reason === RISK_TEXT, status: res.body.status, reason: res.body.decline_reason, paymentId: res.body.trans_id };
    }
    /** A chain started with an approved SALE (its first payment is screened as any SALE), and one RECURRING_SALE of it. */
    async function chainAndCharge(m: TestMerchant, start: () => Promise<void> = async () => undefined): Promise<{ init: Outcome; charge: Outcome }> {
      const email = freshEmail();
      const first = await initSale(t, { payer_email: email }, m);
      assert.equal(first.body.result, 'SUCCESS', first.text);
      await start();
      const res = await recurringSale(t, { initId: first.body.trans_id, token: first.body.recurring_token }, {}, { m, email });
      assert.ok(res.body?.trans_id, res.text);
      return { init: { risk: false, status: first.body.status }, charge: { risk: res.body.decline_reason === RISK_TEXT, status: res.body.status, reason: res.body.decline_reason, paymentId: res.body.trans_id } };
    }
    /** A hosted-fields payment: a new session (or the one given), the card collected with a device id. */
    async function hosted(m: TestMerchant, card: string, o: { token?: string; device?: string } = {}): Promise<Outcome> {
      const token = o.token ?? await openToken(t, newOrder('risk-cond'), {}, m);
      const collected = o.device
        ? await t.postJson('/hosted-fields/collect', { card_number: card, card_expiry: '01/38', card_cvv: '123', device_id: o.device }, { origin: t.baseUrl, token })
        : await collect(t, token, { number: card });
      assert.equal(collected.status, 200, collected.text);
      const res = await processing(t, token, 'purchase', processingBody({ email: freshEmail() }));
      assert.equal(res.status, 200, res.text);
      return { risk: res.body.decline_message === RISK_TEXT, status: res.body.result, reason: res.body.decline_message, paymentId: res.body.public_id };
    }

    async function riskOf(paymentId: string): Promise<{ action: string; reason: string }> {
      const view = await call('GET', `/admin/v1/payments/${paymentId}`);
      assert.equal(view.status, 200, view.text);
      assert.ok(view.body.risk, `payment ${paymentId} was screened`);
      return view.body.risk;
    }
    const reasonOf = async (paymentId: string) => (await riskOf(paymentId)).reason;
    async function assertBlocked(o: Outcome, why: string | RegExp, label: string): Promise<void> {
      assert.equal(o.risk, true, `${label}: blocked by risk management (${JSON.stringify(o)})`);
      if (o.paymentId) {
        const reason = await reasonOf(o.paymentId);
        if (typeof why === 'string') assert.equal(reason, why, label);
        else assert.match(reason, why, label);
      }
    }
    /**
     * Let through by the screen: its evaluation allows it (the sandbox acquirer then approves its success card and
     * declines the others: a decline of the acquirer's is no risk decline).
     */
    async function assertApproved(o: Outcome, label: string): Promise<void> {
      assert.equal(o.risk, false, `${label}: not blocked (${JSON.stringify(o)})`);
      assert.ok(o.paymentId, label);
      assert.equal((await riskOf(o.paymentId)).action, 'allow', label);
    }

    // --- one rule per condition --------------------------------------------------------------------------

    interface ConditionCase { name: string; when: object; match: (m: TestMerchant) => Promise<Outcome>; miss: (m: TestMerchant) => Promise<Outcome> }
    const sales = (match: Record<string, unknown>, miss: Record<string, unknown>) => ({ match: (m: TestMerchant) => cardSale(m, match), miss: (m: TestMerchant) => cardSale(m, miss) });
    const CONDITIONS: ConditionCase[] = [
      { name: 'amount at or above 100.00 (exact)', when: { amount: { min: '100.00' } }, ...sales({ order_amount: '100.00' }, { order_amount: '99.99' }) },
      { name: 'amount at or below 10.00 (exact)', when: { amount: { max: '10.00' } }, ...sales({ order_amount: '10.00' }, { order_amount: '10.01' }) },
      { name: 'amount in JPY (no minor unit) at or above 1000', when: { currencies: ['JPY'], amount: { min: '1000' } }, ...sales({ order_currency: 'JPY', order_amount: '1000' }, { order_currency: 'JPY', order_amount: '999' }) },
      { name: 'currency', when: { currencies: ['EUR'] }, ...sales({ order_currency: 'EUR' }, { order_currency: 'USD' }) },
      { name: 'brand', when: { brands: ['mastercard'] }, ...sales({ card_number: MASTERCARD }, { card_number: US_VISA }) },
      { name: 'one BIN', when: { bin_ranges: [{ from: '555555', to: '555555' }] }, ...sales({ card_number: MASTERCARD }, { card_number: US_VISA }) },
      { name: 'a BIN range of 8 digits', when: { bin_ranges: [{ from: '46015400', to: '46015499' }] }, ...sales({ card_number: GB_VISA }, { card_number: US_VISA }) },
      { name: 'issuing country (BIN table)', when: { card_countries: ['GB'] }, ...sales({ card_number: GB_VISA }, { card_number: US_VISA }) },
      { name: 'billing country', when: { billing_countries: ['GB'] }, ...sales({ payer_country: 'GB' }, { payer_country: 'US' }) },
      { name: 'IP in a CIDR block', when: { ips: ['198.51.100.0/24'] }, ...sales({ payer_ip: '198.51.100.20' }, { payer_ip: '198.51.101.20' }) },
      { name: 'one IP address', when: { ips: ['192.0.2.77'] }, ...sales({ payer_ip: '192.0.2.77' }, { payer_ip: '192.0.2.78' }) },
      { name: 'IP country (IP-to-country table)', when: { ip_countries: ['DE'] }, ...sales({ payer_ip: '203.0.113.5' }, { payer_ip: '192.0.2.5' }) },
      { name: 'mismatch: card country vs IP country', when: { country_mismatch: ['card_ip'] }, ...sales({ card_number: US_VISA, payer_ip: '203.0.113.5' }, { card_number: US_VISA, payer_ip: '192.0.2.5' }) },
      { name: 'mismatch: card country vs billing country', when: { country_mismatch: ['card_billing'] }, ...sales({ card_number: US_VISA, payer_country: 'GB' }, { card_number: US_VISA, payer_country: 'US' }) },
      { name: 'mismatch: IP country vs billing country', when: { country_mismatch: ['ip_billing'] }, ...sales({ payer_ip: '198.51.100.5', payer_country: 'US' }, { payer_ip: '198.51.100.5', payer_country: 'GB' }) },
      { name: 'e-mail domain (any case)', when: { email_domains: ['mailinator.com'] }, ...sales({ payer_email: 'Tester@MAILINATOR.com' }, { payer_email: 'tester@mailinator.org' }) },
      { name: 'method: an alternative method', when: { methods: [apmMethod.key] }, match: (m) => apmSale(m), miss: (m) => cardSale(m) },
      { name: 'method: card', when: { methods: ['card'] }, match: (m) => cardSale(m), miss: (m) => apmSale(m) },
      { name: 'operation: an authorization', when: { operations: ['auth'] }, ...sales({ auth: 'Y' }, {}) },
      { name: 'channel', when: { channels: ['s2s_apm'] }, match: (m) => apmSale(m), miss: (m) => cardSale(m) },
      { name: 'recurring: a chain\'s first payment', when: { recurring: true }, match: async (m) => {
        const res = await initSale(t, {}, m);
        return { risk: res.body.decline_reason === RISK_TEXT, status: res.body.status, reason: res.body.decline_reason, paymentId: res.body.trans_id };
      }, miss: (m) => cardSale(m) },
      { name: 'custom_data: a key with its value', when: { custom_data: { basket: 'gift cards' } }, ...sales({ custom_data: { basket: 'gift cards' } }, { custom_data: { basket: 'books' } }) },
      { name: 'custom_data: a key with any value', when: { custom_data: { coupon: null } }, ...sales({ custom_data: { coupon: 'X1' } }, { custom_data: { basket: 'books' } }) },
    ];

    for (const c of CONDITIONS) {
      it(`condition: ${c.name}`, async () => {
        const m = await merchant();
        await saveRules(m.id, [block(c.name, c.when)]);
        await assertApproved(await c.miss(m), 'the payment that does not match');
        await assertBlocked(await c.match(m), `merchant rule: ${c.name}`, 'the payment that matches');
      });
    }

    it('condition: merchant-initiated, and the 3-D Secure result known before the screen (a chain\'s, for its charges)', async () => {
      for (const [name, when] of [['merchant-initiated', { merchant_initiated: true }], ['3-D Secure authenticated', { three_ds: ['authenticated'] }]] as const) {
        const m = await merchant();
        // The chain's first payment is made before the rule (a 3-D Secure rule would stop no first payment: none is known then).
        const { charge } = await chainAndCharge(m, () => saveRules(m.id, [block(name, when)]));
        await assertBlocked(charge, `merchant rule: ${name}`, `${name}: the chain's charge`);
        await assertApproved(await cardSale(m), `${name}: a payment of the payer's own`);
      }
      const m = await merchant();
      await saveRules(m.id, [block('3-D Secure failed', { three_ds: ['failed', 'attempted'] })]);
      await assertApproved((await chainAndCharge(m)).charge, 'the chain was authenticated, not failed');
    });

    it('condition: merchant (a platform rule) and sandbox or live', async () => {
      const [a, b] = [await merchant(), await merchant()];
      await withPlatformRule(block('merchant a', { merchants: [a.id] }), async () => {
        await assertBlocked(await cardSale(a), 'platform rule: merchant a', 'the merchant named');
        await assertApproved(await cardSale(b), 'another merchant');
      });
      const [live, sandbox] = [await merchant({ sandbox: false }), await merchant()];
      await withPlatformRule(block('live only', { sandbox: false, merchants: [live.id, sandbox.id] }), async () => {
        await assertBlocked(await cardSale(live, { card_number: freshCard(), payer_email: freshEmail() }), 'platform rule: live only', 'a live merchant\'s payment');
        await assertApproved(await cardSale(sandbox), 'a sandbox merchant\'s payment');
      });
    });

    it('condition: MID (known at the screen for a scheduled charge)', async () => {
      const [midA, midB] = [newId(), newId()];
      const [a, b] = [await merchant({ midId: midA }), await merchant({ midId: midB })];
      const schedules: string[] = [];
      for (const m of [a, b]) {
        const scheduleId = await newSchedule(t, { interval_length: '1', interval_unit: 'day', payments_count: '1' }, m);
        const first = await initSale(t, { payer_email: freshEmail(), schedule_id: scheduleId, schedule_start_date: clock.now().toISOString().slice(0, 10) }, m);
        assert.equal(first.body.result, 'SUCCESS', first.text);
        schedules.push(scheduleId);
      }
      await withPlatformRule(block('MID a', { mids: [midA] }), async () => {
        const runner = new ScheduleRunner(t.gateway.ctx, { batchSize: 10 });
        while ((await runner.runOnce()).claimed > 0);
        const [chargedA] = (await ledger(t.store.db, schedules[0]!)).charges;
        const [chargedB] = (await ledger(t.store.db, schedules[1]!)).charges;
        assert.deepEqual([chargedA?.status, chargedA?.reason], ['decline', RISK_TEXT], 'the charge on the MID named');
        assert.equal(await reasonOf(chargedA!.paymentId), 'platform rule: MID a');
        assert.equal(chargedB?.status, 'settled', 'the charge on another MID');
      });
    });

    // --- lists -------------------------------------------------------------------------------------------

    const LISTS: { kind: string; value: string; match: Record<string, unknown>; miss: Record<string, unknown> }[] = [
      { kind: 'card', value: MASTERCARD, match: { card_number: MASTERCARD }, miss: { card_number: US_VISA } },
      { kind: 'bin', value: '460154', match: { card_number: GB_VISA }, miss: { card_number: US_VISA } },
      { kind: 'email', value: 'Listed@Example.com', match: { payer_email: 'listed@example.com' }, miss: { payer_email: 'other@example.com' } },
      { kind: 'email_domain', value: 'listed.example', match: { payer_email: 'a@listed.example' }, miss: { payer_email: 'a@unlisted.example' } },
      { kind: 'ip', value: '203.0.113.9', match: { payer_ip: '203.0.113.9' }, miss: { payer_ip: '203.0.113.10' } },
      { kind: 'ip', value: '2001:db8::/32', match: { payer_ip: '2001:db8::1' }, miss: { payer_ip: '2001:db9::1' } },
      { kind: 'country', value: 'GB', match: { payer_country: 'GB' }, miss: { payer_country: 'US' } },
    ];
    for (const l of LISTS) {
      it(`block list: ${l.kind} ${l.value}`, async () => {
        const m = await merchant();
        const res = await call('POST', `/admin/v1/risk/lists/${m.id}`, { entries: [{ list: 'block', kind: l.kind, value: l.value, reason: 'test' }] });
        assert.equal(res.status, 200, res.text);
        await assertApproved(await cardSale(m, l.miss), 'not listed');
        await assertBlocked(await cardSale(m, l.match), `merchant block list: ${l.kind}`, 'listed');
      });
    }
    it('allow list: an allowed e-mail passes a block rule; a block list entry wins over an allow entry', async () => {
      const m = await merchant();
      await saveRules(m.id, [block('all EUR', { currencies: ['EUR'] })]);
      const res = await call('POST', `/admin/v1/risk/lists/${m.id}`, { entries: [
        { list: 'allow', kind: 'email', value: 'vip@example.com', reason: 'known payer' },
        { list: 'allow', kind: 'email', value: 'both@example.com', reason: 'known payer' },
        { list: 'block', kind: 'email', value: 'both@example.com', reason: 'chargeback' },
      ] });
      assert.equal(res.status, 200, res.text);
      await assertApproved(await cardSale(m, { order_currency: 'EUR', payer_email: 'vip@example.com' }), 'allow-listed');
      await assertBlocked(await cardSale(m, { order_currency: 'EUR', payer_email: 'other@example.com' }), 'merchant rule: all EUR', 'not listed');
      await assertBlocked(await cardSale(m, { payer_email: 'both@example.com' }), 'merchant block list: email', 'on both lists');
    });

    // --- velocity: each measure and dimension --------------------------------------------------------------

    interface VelocityCase {
      name: string;
      velocity: object;
      /** Payments made first; then the miss (approved) and the match (blocked), in that order. */
      prime: (m: TestMerchant, key: Keyed) => Promise<void>;
      miss: (m: TestMerchant, key: Keyed) => Promise<Outcome>;
      match: (m: TestMerchant, key: Keyed) => Promise<Outcome>;
    }
    interface Keyed { email: string; ip: string; card: string; cards: string[]; token?: string; device: string }
    const times = async (n: number, fn: (i: number) => Promise<Outcome>) => {
      for (let i = 0; i < n; i++) await fn(i);
    };
    const declined = (extra: Record<string, unknown>) => ({ card_exp_month: '02', ...extra });
    const VELOCITY: VelocityCase[] = [
      ...(['card', 'email', 'ip'] as const).map((by): VelocityCase => {
        const same = (k: Keyed) => (by === 'card' ? { card_number: k.card } : by === 'email' ? { payer_email: k.email } : { payer_ip: k.ip });
        const other = () => (by === 'card' ? { card_number: freshCard() } : by === 'email' ? { payer_email: freshEmail() } : { payer_ip: freshIp() });
        return {
          name: `attempts by ${by}`, velocity: { measure: 'attempts', by, window_minutes: 60, more_than: 1 },
          prime: async (m, k) => void (await cardSale(m, same(k))), miss: (m) => cardSale(m, other()), match: (m, k) => cardSale(m, same(k)),
        };
      }),
      ...(['card', 'email', 'ip'] as const).map((by): VelocityCase => {
        const same = (k: Keyed) => (by === 'card' ? { card_number: k.card } : by === 'email' ? { payer_email: k.email } : { payer_ip: k.ip });
        return {
          name: `declines by ${by}`, velocity: { measure: 'declines', by, window_minutes: 60, more_than: 1 },
          // One decline, then the miss (one decline is not more than one), one more decline, the match.
          prime: async (m, k) => void (await cardSale(m, declined(same(k)))),
          miss: async (m, k) => {
            const o = await cardSale(m, same(k));
            await cardSale(m, declined(same(k)));
            return o;
          },
          match: (m, k) => cardSale(m, same(k)),
        };
      }),
      {
        name: 'approvals by email', velocity: { measure: 'approvals', by: 'email', window_minutes: 60, more_than: 1 },
        prime: async (m, k) => void (await cardSale(m, { payer_email: k.email })),
        miss: async (m, k) => {
          const o = await cardSale(m, { payer_email: k.email, card_exp_month: '02' }); // one approval so far; a decline is none
          assert.equal((await cardSale(m, { payer_email: k.email })).status, 'SETTLED', 'the second approval');
          return o;
        },
        match: (m, k) => cardSale(m, { payer_email: k.email }),
      },
      ...(['email', 'ip'] as const).map((by): VelocityCase => {
        const same = (k: Keyed) => (by === 'email' ? { payer_email: k.email } : { payer_ip: k.ip });
        return {
          name: `amount by ${by} (exact decimals)`, velocity: { measure: 'amount', by, window_minutes: 60, more_than_amount: '20.00', currency: 'USD' },
          prime: async (m, k) => void (await cardSale(m, { order_amount: '15.00', ...same(k) })),
          miss: (m, k) => cardSale(m, { order_amount: '5.00', ...same(k) }), // 20.00: not more than 20.00
          match: (m, k) => cardSale(m, { order_amount: '0.01', ...same(k) }), // 20.01
        };
      }),
      ...(['email', 'ip', 'merchant'] as const).map((by): VelocityCase => {
        const same = (k: Keyed) => (by === 'email' ? { payer_email: k.email } : by === 'ip' ? { payer_ip: k.ip } : {});
        return {
          name: `distinct cards by ${by}`, velocity: { measure: 'distinct_cards', by, window_minutes: 60, more_than: 2 },
          prime: (m, k) => times(2, (i) => cardSale(m, { card_number: k.cards[i], ...same(k) })),
          miss: (m, k) => cardSale(m, { card_number: k.cards[0], ...same(k) }), // a card seen already: still two
          match: (m, k) => cardSale(m, { card_number: k.cards[2], ...same(k) }),
        };
      }),
      {
        name: 'attempts by merchant', velocity: { measure: 'attempts', by: 'merchant', window_minutes: 60, more_than: 2 },
        prime: async (m) => void (await cardSale(m)), miss: (m) => cardSale(m), match: (m) => cardSale(m),
      },
      {
        name: 'distinct cards by hosted-fields session', velocity: { measure: 'distinct_cards', by: 'session', window_minutes: 60, more_than: 1 },
        prime: async (m, k) => void (await hosted(m, k.cards[0]!, { token: k.token })),
        miss: (m, k) => hosted(m, k.cards[1]!), // another session
        match: (m, k) => hosted(m, k.cards[2]!, { token: k.token }),
      },
      {
        name: 'distinct cards by device', velocity: { measure: 'distinct_cards', by: 'device', window_minutes: 60, more_than: 1 },
        prime: async (m, k) => void (await hosted(m, k.cards[0]!, { device: k.device })),
        miss: (m, k) => hosted(m, k.cards[1]!, { device: `${k.device.slice(0, 20)}-other` }),
        match: (m, k) => hosted(m, k.cards[2]!, { device: k.device }),
      },
    ];
    for (const v of VELOCITY) {
      it(`velocity: ${v.name}`, async () => {
        const m = await merchant();
        await saveRules(m.id, [block(v.name, { velocity: [v.velocity] })]);
        const k: Keyed = {
          email: freshEmail(), ip: freshIp(), card: freshCard(), cards: [freshCard(), freshCard(), freshCard()],
          device: `device-${process.pid}-${++keys}-abcdefgh`.slice(0, 40),
          ...(v.name.includes('session') ? { token: await openToken(t, newOrder('risk-session'), {}, m) } : {}),
        };
        await v.prime(m, k);
        await assertApproved(await v.miss(m, k), 'the payment that does not reach the figure');
        await assertBlocked(await v.match(m, k), `merchant rule: ${v.name}`, 'the payment past the figure');
      });
    }

    // --- window edges on the test clock ---------------------------------------------------------------------

    it('velocity windows at their edges: a minute window (10 minutes) and an hour window (3 hours), just inside and just outside', async () => {
      const m = await merchant();
      await saveRules(m.id, [
        block('10 minutes', { velocity: [{ measure: 'attempts', by: 'email', window_minutes: 10, more_than: 1 }] }),
        block('3 hours', { velocity: [{ measure: 'attempts', by: 'ip', window_minutes: 180, more_than: 1 }] }),
      ]);
      // Every probe has its own key with one attempt before it: the probe itself is counted too.
      const start = new Date(Math.ceil(clock.now().getTime() / 3_600_000 + 1) * 3_600_000 + 30_000); // hh:00:30 of an hour to come
      clock.set(start);
      const [inside10, outside10] = [freshEmail(), freshEmail()];
      const [inside180, outside180] = [freshIp(), freshIp()];
      for (const email of [inside10, outside10]) await assertApproved(await cardSale(m, { payer_email: email, payer_ip: freshIp() }), 'first attempt');
      for (const ip of [inside180, outside180]) await assertApproved(await cardSale(m, { payer_ip: ip, payer_email: freshEmail() }), 'first attempt');
      const at = (ms: number) => clock.set(new Date(start.getTime() - 30_000 + ms));
      // Minute buckets: the attempt at hh:00:30 is in the 10-minute window until hh:09:59.999, not from hh:10:00.
      at(10 * 60_000 - 1);
      await assertBlocked(await cardSale(m, { payer_email: inside10, payer_ip: freshIp() }), 'merchant rule: 10 minutes', 'hh:09:59.999');
      at(10 * 60_000);
      await assertApproved(await cardSale(m, { payer_email: outside10, payer_ip: freshIp() }), 'hh:10:00');
      // Hour buckets: the attempt at hh:00:30 is in the 3-hour window until (hh+2):59:59.999, not from (hh+3):00.
      at(180 * 60_000 - 1);
      await assertBlocked(await cardSale(m, { payer_ip: inside180, payer_email: freshEmail() }), 'merchant rule: 3 hours', '(hh+2):59:59.999');
      at(180 * 60_000);
      await assertApproved(await cardSale(m, { payer_ip: outside180, payer_email: freshEmail() }), '(hh+3):00:00');
    });
  });
}
