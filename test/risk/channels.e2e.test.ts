/**
 * The risk screen on every channel and kind (issue 26 item 1), over HTTP with signed requests, on both stores:
 * for each path a payment takes (S2S APM SALE, Google Pay and Apple Pay tokens through S2S, CREDIT2CARD and
 * CREDIT2VIRTUAL payouts, S2S DEBIT, RECURRING_SALE, the schedule runner's charge) a merchant's active block rule
 * and an entry of its block list each stop a payment before any acquirer or provider call (the sandbox connectors
 * are watched), with the risk decline text, its evaluation recorded, and exactly one callback; a payment that
 * neither matches goes through (so the watch does see calls). Merchant-initiated charges (RECURRING_SALE and the
 * schedule runner's) skip velocity (a velocity rule that would block them does not, and they are not counted) but
 * not block lists. A review rule on a path that cannot hold (an APM SALE, a wallet payment) declines as a block.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { storeKinds } from '../support/stores.ts';
import { startTestGateway, type TestGateway, type TestMerchant } from '../support/gateway.ts';
import { adminCall, tokenFor } from '../admin/config-support.ts';
import { ManualClock } from '../../src/domain/clock.ts';
import { ScheduleRunner } from '../../src/workers/schedule-runner.ts';
import { sandboxApm } from '../../src/sandbox/apm/instance.ts';
import type { CardConnector } from '../../src/connectors/types.ts';
import { CARD, PAYOUT_CARD, f1, f5, orderId, saleFields } from '../s2s-card/support.ts';
import { configureWallets, walletKit, walletSale, type WalletKit } from '../s2s-card/wallet-support.ts';
import { initSale, newSchedule, recurringSale } from '../recurring/support.ts';
import { ledger } from '../schedules/support.ts';
import * as apm from '../apm/support.ts';

const RISK_TEXT = 'Declined by risk management';
const BLOCK_RULE = { name: 'Block 77 and above', mode: 'active', when: { amount: { min: '77.00' } }, then: { action: 'block' } };

interface Paid { transId: string; result: string; reason: string | undefined }

for (const { kind, skip } of await storeKinds()) {
  describe(`risk screen on every channel and kind (${kind})`, { skip }, () => {
    let t: TestGateway;
    // Now: the wallet tokens' keys and certificates are checked against the clock.
    const clock = new ManualClock(new Date().toISOString());
    let operator: string;
    let kit: WalletKit;
    /** Payment ids the sandbox card acquirer and the sandbox APM provider were asked about. */
    const asked: string[] = [];
    const call = (method: string, path: string, body?: unknown) => adminCall(t.baseUrl, method, path, operator, body);

    before(async () => {
      t = await startTestGateway(kind, { clock, adminToken: `risk-channels-${kind}`, mids: [{ paymentMode: 'SMS/DMS', cardOnFileSupport: true }] });
      operator = await tokenFor(t, 'operator');
      kit = await walletKit(t);
      const connectors = t.gateway.ctx.connectors as Map<string, CardConnector>;
      const card = connectors.get('sandbox-card')!;
      const spy: CardConnector = Object.create(card) as CardConnector;
      Object.defineProperty(spy, 'authorize', { value: (req: Parameters<CardConnector['authorize']>[0], mid?: Parameters<CardConnector['authorize']>[1]) => {
        asked.push(req.paymentId);
        return card.authorize(req, mid);
      } });
      connectors.set('sandbox-card', spy);
      const provider = sandboxApm(t.gateway.ctx);
      const initiate = provider.initiate.bind(provider);
      const payout = provider.payout.bind(provider);
      Object.assign(provider, {
        initiate: (req: Parameters<typeof initiate>[0]) => { asked.push(req.paymentId); return initiate(req); },
        payout: (req: Parameters<typeof payout>[0]) => { asked.push(req.paymentId); return payout(req); },
      });
    });
    after(() => t?.close());

    const merchant = (): Promise<TestMerchant> => t.addMerchant({ notificationUrl: 'http://127.0.0.1:9/callbacks', mids: [{ paymentMode: 'SMS/DMS', cardOnFileSupport: true }] });

    async function saveRules(scope: string, rules: object[]): Promise<void> {
      const current = await call('GET', `/admin/v1/risk/rules/${scope}`);
      const res = await call('PUT', `/admin/v1/risk/rules/${scope}`, { version: current.body.version, rules: { rules } });
      assert.equal(res.status, 200, res.text);
    }
    async function blockList(scope: string, kindOf: string, value: string): Promise<void> {
      const res = await call('POST', `/admin/v1/risk/lists/${scope}`, { entries: [{ list: 'block', kind: kindOf, value, reason: 'test' }] });
      assert.equal(res.status, 200, res.text);
    }
    /** The payment id behind a trans_id (the S2S answers name the payment by trans_id). */
    async function paymentIdOf(transId: string): Promise<string> {
      const view = await call('GET', `/admin/v1/payments/${transId}`);
      assert.equal(view.status, 200, view.text);
      return view.body.payment.id as string;
    }
    async function riskOf(paymentId: string) {
      const res = await call('GET', `/admin/v1/payments/${paymentId}/risk`);
      assert.equal(res.status, 200, res.text);
      return res.body as { action: string; reason: string; outcome: string | null; evaluation: { velocity: Record<string, string>; lists: { kind: string }[] } };
    }
    const callbacksOf = async (paymentId: string) =>
      Number((await t.store.db.query<{ n: string }>('SELECT count(*)::text AS n FROM callbacks WHERE payment_id = $1', [paymentId]))[0]!.n);

    /** A payment stopped by the screen: the risk text, no call to any acquirer or provider, its evaluation, one callback. */
    async function assertStopped(paid: Paid, why: RegExp, action = 'block'): Promise<void> {
      assert.equal(paid.result, 'DECLINED', JSON.stringify(paid));
      assert.equal(paid.reason, RISK_TEXT);
      const id = await paymentIdOf(paid.transId);
      assert.ok(!asked.includes(id), 'no acquirer or provider was asked');
      const risk = await riskOf(id);
      assert.equal(risk.action, action);
      assert.match(risk.reason, why);
      assert.equal(risk.outcome, 'declined');
      assert.equal(await callbacksOf(id), 1, 'exactly one callback');
      await assertTimelineStopped(id);
    }
    /** Its timeline: created, the risk screen, its decline, the callback; no attempt at an acquirer or provider (none was made). */
    async function assertTimelineStopped(paymentId: string): Promise<void> {
      const res = await call('GET', `/admin/v1/payments/${paymentId}/timeline`);
      assert.equal(res.status, 200, res.text);
      const kinds = (res.body.steps as { kind: string }[]).map((s) => s.kind);
      assert.deepEqual(res.body.attempts, [], kinds.join());
      assert.deepEqual(kinds.filter((k) => k !== 'callback'), ['created', 'risk', 'risk'], kinds.join());
      assert.match((res.body.steps as { text: string }[]).at(kinds.lastIndexOf('risk'))!.text, /declined by the risk screen \(risk_blocked\): no acquirer or provider was asked$/);
    }
    async function assertPassed(paid: Paid): Promise<void> {
      assert.notEqual(paid.result, 'DECLINED', JSON.stringify(paid));
      assert.ok(asked.includes(await paymentIdOf(paid.transId)), 'the acquirer or provider was asked');
    }
    const answer = (res: { body: any; text: string }): Paid => {
      assert.ok(res.body?.trans_id, res.text);
      return { transId: res.body.trans_id, result: res.body.result, reason: res.body.decline_reason };
    };

    const apmMethod = apm.representative('extra_fields', 's2s_apm');
    const apmParameters = Object.fromEntries(apmMethod.params.filter((p) => p.collectOnPage).map((p) => [p.name, 'ABC12345']));
    const payoutBrand = apm.mobileMoneyPayout();

    /**
     * Each customer-initiated path: how it pays (an amount, and the value a block list holds), and the list entry
     * that stops it. A fresh merchant per path, so rules and lists stand alone.
     */
    const paths: { name: string; list: (m: TestMerchant) => [string, string]; setup?: (m: TestMerchant) => Promise<void>; pay: (m: TestMerchant, o: { amount: string; listed: boolean }) => Promise<Paid> }[] = [
      {
        name: 'S2S APM SALE', list: () => ['email', 'listed-apm@example.com'],
        pay: async (m, o) => answer(await apm.sale(t, apmMethod.key, { parameters: apmParameters, order_amount: o.amount, ...(o.listed ? { payer_email: 'listed-apm@example.com' } : {}) }, m)),
      },
      ...(['googlepay', 'applepay'] as const).map((wallet) => ({
        name: `S2S wallet SALE (${wallet})`, list: (): [string, string] => ['ip', '198.51.100.0/24'],
        setup: (m: TestMerchant) => configureWallets(t, operator, m.id, kit, true),
        pay: async (m: TestMerchant, o: { amount: string; listed: boolean }) => {
          const token = wallet === 'googlepay' ? kit.googleToken() : await kit.appleToken();
          return answer(await walletSale(t, m, wallet, token, { order_amount: o.amount, ...(o.listed ? { payer_ip: '198.51.100.9' } : {}) }));
        },
      })),
      {
        name: 'CREDIT2CARD payout', list: () => ['card', PAYOUT_CARD],
        pay: async (m, o) => {
          const pan = o.listed ? PAYOUT_CARD : '4111111111111111';
          const id = orderId('C2C');
          return answer(await t.postForm('/post', { client_key: m.key, action: 'CREDIT2CARD', order_id: id, order_amount: o.amount, order_currency: 'USD', order_description: 'payout', card_number: pan, hash: f5(m.password, pan) }));
        },
      },
      {
        name: 'CREDIT2VIRTUAL payout', list: () => ['email_domain', 'listed-payee.example'],
        pay: async (m, o) => {
          const f = {
            action: 'CREDIT2VIRTUAL', client_key: m.key, brand: payoutBrand.key, order_id: apm.orderId('C2V'), order_amount: o.amount, order_currency: 'GHS',
            order_description: 'Payout', payee_first_name: 'Kofi', payee_last_name: 'Mensah', payee_email: o.listed ? 'kofi@listed-payee.example' : 'success@gmail.com',
            parameters: { mobile_money_operator: 'mtn-ci', mobile_number: '+2250701020304', customer_email: 'success@gmail.com' },
          };
          return answer(await t.postForm('/apm/post', { ...f, hash: apm.credit2VirtualHash(f.order_id, o.amount, 'GHS', m.password) }));
        },
      },
      {
        name: 'S2S DEBIT', list: () => ['email', 'listed-debit@example.com'],
        pay: async (m, o) => {
          const fields = saleFields({ action: 'DEBIT', order_amount: o.amount, ...(o.listed ? { payer_email: 'listed-debit@example.com' } : {}) });
          return answer(await t.postForm('/post', { client_key: m.key, ...fields, hash: f1(fields.payer_email as string, m.password, CARD) }));
        },
      },
    ];

    for (const path of paths) {
      it(`${path.name}: a block rule and a block-list entry stop it before any acquirer call, one callback each`, async () => {
        const m = await merchant();
        await path.setup?.(m);
        await saveRules(m.id, [BLOCK_RULE]);
        const [listKind, listValue] = path.list(m);
        await blockList(m.id, listKind, listValue);
        await assertPassed(await path.pay(m, { amount: '10.00', listed: false }));
        await assertStopped(await path.pay(m, { amount: '77.00', listed: false }), /^merchant rule: Block 77 and above$/);
        await assertStopped(await path.pay(m, { amount: '10.00', listed: true }), /list/);
      });
    }

    it('a review on a path that cannot hold (S2S APM SALE, a wallet payment) is declined as a block, before the provider', async () => {
      const m = await merchant();
      await configureWallets(t, operator, m.id, kit, true);
      await saveRules(m.id, [{ name: 'Review 50 and above', mode: 'active', when: { amount: { min: '50.00' } }, then: { action: 'review' } }]);
      const apmSale = answer(await apm.sale(t, apmMethod.key, { parameters: apmParameters, order_amount: '50.00' }, m));
      await assertStopped(apmSale, /^merchant rule: Review 50 and above$/, 'review');
      const wallet = answer(await walletSale(t, m, 'googlepay', kit.googleToken(), { order_amount: '50.00' }));
      await assertStopped(wallet, /^merchant rule: Review 50 and above$/, 'review');
      const reviews = await call('GET', `/admin/v1/risk/reviews?merchant_id=${m.id}`);
      assert.equal(reviews.status, 200, reviews.text);
      assert.deepEqual(reviews.body.reviews, [], 'nothing is held');
    });

    /** A chain's first payment (customer-initiated, screened as any SALE) for an e-mail of the test's own. */
    async function chain(m: TestMerchant, email: string, scheduleId?: string) {
      const first = await initSale(t, { payer_email: email, ...(scheduleId ? { schedule_id: scheduleId, schedule_start_date: clock.now().toISOString().slice(0, 10) } : {}) }, m);
      assert.equal(first.body.result, 'SUCCESS', first.text);
      return { initId: first.body.trans_id as string, token: first.body.recurring_token as string };
    }
    const velocityRule = { name: 'Two attempts per e-mail in an hour', mode: 'active', when: { velocity: [{ measure: 'attempts', by: 'email', window_minutes: 60, more_than: 1 }] }, then: { action: 'block' } };

    it('RECURRING_SALE: a block rule and a block-listed e-mail stop it; velocity neither stops nor counts it', async () => {
      const m = await merchant();
      await saveRules(m.id, [BLOCK_RULE, velocityRule]);
      const email = `chain-${kind}-${Date.now()}@example.com`;
      const c = await chain(m, email);
      const recurring = async (amount: string) => answer(await recurringSale(t, c, { order_amount: amount }, { m, email }));
      // Velocity: the chain's first payment is one attempt; a customer-initiated second one would be blocked.
      for (let i = 0; i < 2; i++) await assertPassed(await recurring('5.00'));
      await assertStopped(await recurring('77.00'), /^merchant rule: Block 77 and above$/);
      const cit = answer(await t.postForm('/post', { client_key: m.key, ...saleFields({ payer_email: email }), hash: f1(email, m.password, CARD) }));
      await assertStopped(cit, /^merchant rule: Two attempts per e-mail in an hour$/);
      const seen = await riskOf(await paymentIdOf(cit.transId));
      assert.equal(seen.evaluation.velocity['attempts:email:60:'], '2', 'the first payment and this one: the charges were not counted');
      await blockList(m.id, 'email', email);
      const listed = await recurring('5.00');
      await assertStopped(listed, /list/);
      assert.deepEqual((await riskOf(await paymentIdOf(listed.transId))).evaluation.lists.map((l) => l.kind), ['email']);
    });

    it('the schedule runner\'s charges: a block rule and a block-listed e-mail stop them; velocity neither stops nor counts them', async () => {
      const scheduled = async (rules: object[], list?: 'email') => {
        const m = await merchant();
        const email = `sched-${kind}-${Date.now()}-${Math.random().toString(36).slice(2)}@example.com`;
        const scheduleId = await newSchedule(t, { interval_length: '1', interval_unit: 'day', payments_count: '1' }, m);
        // The rules before the chain's first payment (a counter is kept from the save of a rule reading it); the list after it.
        await saveRules(m.id, rules);
        await chain(m, email, scheduleId);
        if (list) await blockList(m.id, list, email);
        return { m, email, scheduleId };
      };
      const byRule = await scheduled([{ name: 'No charge without the payer', mode: 'active', when: { channels: ['schedule'] }, then: { action: 'block' } }]);
      const byList = await scheduled([], 'email');
      const velocity = await scheduled([velocityRule]);
      const runner = new ScheduleRunner(t.gateway.ctx, { batchSize: 10 });
      while ((await runner.runOnce()).claimed > 0);
      const charge = async (scheduleId: string) => {
        const [c] = (await ledger(t.store.db, scheduleId)).charges;
        assert.ok(c, 'the schedule charged');
        return c;
      };
      for (const [s, why] of [[byRule, /^merchant rule: No charge without the payer$/], [byList, /list/]] as const) {
        const c = await charge(s.scheduleId);
        assert.equal(c.status, 'decline');
        assert.equal(c.reason, RISK_TEXT);
        assert.equal(c.callbacks, 1, 'exactly one callback');
        assert.ok(!asked.includes(c.paymentId), 'no acquirer was asked');
        // The charge's attempt was opened with its claim, before the screen: the timeline says it was never sent.
        const timeline = await call('GET', `/admin/v1/payments/${c.paymentId}/timeline`);
        const steps = timeline.body.steps as { kind: string; text: string }[];
        assert.deepEqual(steps.filter((x) => x.kind === 'acquirer'), [], 'no answer of an acquirer');
        assert.match(steps.find((x) => x.kind === 'routing')!.text, /: stopped by the risk screen \(risk_blocked\), the acquirer was not asked$/);
        assert.ok(steps.findIndex((x) => x.kind === 'risk') >= 0);
        const risk = await riskOf(c.paymentId);
        assert.equal(risk.action, 'block');
        assert.match(risk.reason, why);
      }
      const charged = await charge(velocity.scheduleId);
      assert.equal(charged.status, 'settled', 'a velocity rule does not match a merchant-initiated charge');
      assert.ok(asked.includes(charged.paymentId));
      const cit = answer(await t.postForm('/post', { client_key: velocity.m.key, ...saleFields({ payer_email: velocity.email }), hash: f1(velocity.email, velocity.m.password, CARD) }));
      await assertStopped(cit, /^merchant rule: Two attempts per e-mail in an hour$/);
      assert.equal((await riskOf(await paymentIdOf(cit.transId))).evaluation.velocity['attempts:email:60:'], '2', 'the scheduled charge was not counted');
    });
  });
}
