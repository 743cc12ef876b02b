/**
 * Card testing stopped at the door (issue 26 item 5), with the platform's default rules as they are on a first
 * start: 50 cards tried through hosted-fields tokens of one page, from one IP, with one e-mail, by a live
 * merchant's "payer". A token takes at most 20 declined attempts (the session's own limit, issue 25 item 2, set to
 * its highest), so the tester goes on with a new token, as reloading the page gives one. After the thresholds
 * every attempt is blocked before any acquirer call, each with its rule as the reason, while a normal payer from
 * another address pays.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { storeKinds } from '../support/stores.ts';
import { startTestGateway, type TestGateway, type TestMerchant } from '../support/gateway.ts';
import { adminCall, tokenFor } from '../admin/config-support.ts';
import { collect, newOrder, openToken, processing, processingBody, spyOnConnector } from '../hosted-fields/support.ts';
import { luhnValid } from '../../src/domain/card.ts';
import type { CardConnector } from '../../src/connectors/types.ts';

/** The n-th card of a tester's list: 16 digits, a valid check digit. */
function testerCard(n: number): string {
  const body = `400000${String(n).padStart(9, '0')}`;
  for (let d = 0; d <= 9; d++) if (luhnValid(body + d)) return body + d;
  throw new Error('no check digit');
}

for (const { kind, skip } of await storeKinds()) {
  describe(`card testing defaults (${kind})`, { skip }, () => {
    let t: TestGateway;
    let live: TestMerchant;
    let viewer: string;
    let calls: unknown[];

    before(async () => {
      t = await startTestGateway(kind, { adminToken: `ct-${kind}` });
      // The defaults screen live merchants; a live merchant's acquirer here is the sandbox's card engine under
      // another name (a live merchant may not use the sandbox connector itself), watched for the calls it gets.
      calls = spyOnConnector(t);
      const connectors = t.gateway.ctx.connectors as Map<string, CardConnector>;
      connectors.set('acquirer-under-test', connectors.get('sandbox-card')!);
      live = await t.addMerchant({ sandbox: false, notificationUrl: 'http://127.0.0.1:9/callbacks', settings: { payerRetries: { maxAttempts: 20 } }, mids: [{ paymentMode: 'SMS/DMS', connector: 'acquirer-under-test' }] });
      viewer = await tokenFor(t, 'viewer');
    });
    after(() => t?.close());

    it('50 cards through one page\'s tokens, one IP and e-mail: blocked after the thresholds, each with its reason; another payer pays', async () => {
      const body = processingBody({ email: 'tester@example.com' });
      const results: { result: string; message: string; paymentId: string }[] = [];
      let token = '';
      for (let n = 1; n <= 50; n++) {
        if (n % 20 === 1) token = await openToken(t, newOrder('tester'), { customer: { name: 'Card Tester', email: 'tester@example.com', ip: '203.0.113.66' } }, live);
        const collected = await collect(t, token, { number: testerCard(n), expiry: '02/38' });
        assert.equal(collected.status, 200, collected.text);
        const res = await processing(t, token, 'purchase', body);
        assert.equal(res.status, 200, res.text);
        results.push({ result: res.body.result, message: res.body.decline_message, paymentId: res.body.public_id });
      }
      assert.ok(results.every((r) => r.result === 'decline'), 'every attempt declined');
      assert.equal(calls.length, 3, 'only the first three cards reached the acquirer');
      assert.deepEqual(results.slice(0, 3).map((r) => r.message), Array(3).fill('Declined by processing'));
      assert.ok(results.slice(3).every((r) => r.message === 'Declined by risk management'));

      const reasons: string[] = [];
      for (const r of results.slice(3)) {
        const risk = await adminCall(t.baseUrl, 'GET', `/admin/v1/payments/${r.paymentId}/risk`, viewer);
        assert.equal(risk.status, 200, risk.text);
        assert.equal(risk.body.action, 'block');
        reasons.push(risk.body.reason);
      }
      // Cards 4 to 10: the fourth distinct card of the e-mail; from the 11th the IP's (its rule comes first).
      assert.deepEqual(reasons.slice(0, 7), Array(7).fill('platform rule: Card testing: more than 3 cards per e-mail in a day'));
      assert.deepEqual(reasons.slice(7), Array(40).fill('platform rule: Card testing: more than 10 cards from one IP in an hour'));
      const last = await adminCall(t.baseUrl, 'GET', `/admin/v1/payments/${results.at(-1)!.paymentId}/risk`, viewer);
      assert.equal(last.body.evaluation.velocity['distinct_cards:ip:60:'], '50');
      assert.equal(last.body.evaluation.velocity['distinct_cards:session:60:'], '10', 'the third token saw its 10 cards');
      const twentieth = await adminCall(t.baseUrl, 'GET', `/admin/v1/payments/${results[19]!.paymentId}/risk`, viewer);
      assert.equal(twentieth.body.evaluation.velocity['distinct_cards:session:60:'], '20');

      const normal = await openToken(t, newOrder('normal'), { customer: { name: 'Jane Roe', email: 'jane@example.org', ip: '192.0.2.10' } }, live);
      await collect(t, normal, { number: '4111111111111111', expiry: '01/38' });
      const paid = await processing(t, normal, 'purchase', processingBody({ email: 'jane@example.org' }));
      assert.equal(paid.body.result, 'success', paid.text);
      assert.equal(calls.length, 4);

      const metrics = await (await fetch(`${t.baseUrl}/metrics`)).text();
      const ipRule = /portcullis_risk_rule_total\{scope="platform",rule="Card testing: more than 10 cards from one IP in an hour",result="block"\} (\d+)/.exec(metrics);
      assert.ok(ipRule && Number(ipRule[1]) >= 40, 'blocked counts by rule on /metrics');
    });
  });
}
