/**
 * The payer's device id (issue 26): posted by the hosted-fields card frame (`device_id` with the collection) and by
 * the Checkout page's form, it keys the risk engine's device velocity across sessions and pages: a merchant's rule
 * "more than 2 distinct cards from one device in an hour" blocks the third card from one device (a new session each
 * time, so no session rule sees it), while another device pays; the device is listed from a blocked payment in one
 * action and the list (read before the rules) then blocks it, on the Checkout page's alternative-method (APM) and
 * wallet forms too (each posts the page's device_id). A device id of the wrong shape is refused at collection.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { storeKinds } from '../support/stores.ts';
import { startTestGateway, type TestGateway, type TestMerchant } from '../support/gateway.ts';
import { adminCall, tokenFor } from '../admin/config-support.ts';
import { newOrder, openToken, processing, processingBody } from '../hosted-fields/support.ts';
import { checkoutHash } from '../support/merchant.ts';
import { configureWallets, walletKit } from '../s2s-card/wallet-support.ts';

const DEVICE = 'dev1ce-under-test-000001';
const OTHER = 'another-device-000000002';
const AWCC = { parameters: { awcc: { crypto_type: 'USDT' } } };

for (const { kind, skip } of await storeKinds()) {
  describe(`device id in the risk engine (${kind})`, { skip }, () => {
    let t: TestGateway;
    let m: TestMerchant;
    let admin: string;

    before(async () => {
      t = await startTestGateway(kind, { adminToken: `device-${kind}` });
      m = await t.addMerchant({ notificationUrl: 'http://127.0.0.1:9/callbacks', settings: { payerRetries: { maxAttempts: 20 } } });
      admin = await tokenFor(t, 'admin');
      const rules = await adminCall(t.baseUrl, 'PUT', `/admin/v1/risk/rules/${m.id}`, admin, { version: 0, rules: { rules: [
        { name: 'Cards per device', mode: 'active', when: { velocity: [{ measure: 'distinct_cards', by: 'device', window_minutes: 60, more_than: 2 }] }, then: { action: 'block' } },
      ] } });
      assert.equal(rules.status, 200, rules.text);
    });
    after(() => t?.close());

    /** A new hosted-fields session, the card collected with this device id, charged: the processing answer. */
    async function hostedPayment(card: string, device: string | undefined) {
      const token = await openToken(t, newOrder('device'), {}, m);
      const collected = await t.postJson('/hosted-fields/collect', { card_number: card, card_expiry: '01/38', card_cvv: '123', ...(device ? { device_id: device } : {}) }, { origin: t.baseUrl, token });
      assert.equal(collected.status, 200, collected.text);
      const res = await processing(t, token, 'purchase', processingBody());
      assert.equal(res.status, 200, res.text);
      return res.body as { result: string; decline_message?: string; public_id: string };
    }

    /** A new Checkout session paid through its page's form with this device id: the payment's id. */
    async function pagePayment(card: string, device: string): Promise<string> {
      return pageForm(['card'], '/pay', { method: 'card', card_number: card, card_expiry: '01/38', card_cvv: '123', card_holder: 'Jane Roe', billing_country: 'GB', billing_city: 'London', billing_address: '1 Main Street', billing_zip: 'SW1A1AA', email: 'jane@example.org', device_id: device });
    }

    /** A new Checkout session offering these methods, one of its page's forms posted (path after the page's): the payment's id. */
    async function pageForm(methods: string[], formPath: string, fields: Record<string, string>, extra: Record<string, unknown> = {}): Promise<string> {
      const order = newOrder('device-page');
      const session = await t.postJson('/api/v1/session', {
        merchant_key: m.key, operation: 'purchase', methods, order, ...extra, success_url: 'https://shop.example/ok', cancel_url: 'https://shop.example/cancel',
        customer: { name: 'Jane Roe', email: 'jane@example.org' }, hash: checkoutHash(m.password, order.number, order.amount, order.currency, order.description),
      });
      assert.equal(session.status, 200, session.text);
      const path = new URL(session.body.redirect_url as string).pathname;
      const page = await (await fetch(`${t.baseUrl}${path}`)).text();
      assert.match(page, /<input type="hidden" name="device_id" value="">/, 'the page\'s form carries the device id');
      const res = await fetch(`${t.baseUrl}${path}${formPath}`, {
        method: 'POST', redirect: 'manual', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(fields).toString(),
      });
      assert.ok(res.status < 500, `${res.status}`);
      const status = await t.postJson('/api/v1/payment/status', { merchant_key: m.key, order_id: order.number, hash: checkoutHash(m.password, order.number) });
      assert.equal(status.status, 200, status.text);
      return status.body.payment_id as string;
    }

    const riskOf = async (paymentId: string) => {
      const res = await adminCall(t.baseUrl, 'GET', `/admin/v1/payments/${paymentId}/risk`, admin);
      assert.equal(res.status, 200, res.text);
      return res.body as { payment_id: string; action: string; reason: string; device_id: string | null; evaluation: { velocity: Record<string, string> } };
    };

    it('counts distinct cards per device across hosted-fields sessions and the Checkout page; lists a device from a payment', async () => {
      // The sandbox's acquirer declines any card but its success card: the first two reach it, the third does not.
      const first = await hostedPayment('4000056655665556', DEVICE);
      const second = await hostedPayment('5555555555554444', DEVICE);
      assert.deepEqual([first.decline_message, second.decline_message], ['Declined by processing', 'Declined by processing']);
      const third = await hostedPayment('4012888888881881', DEVICE);
      assert.equal(third.result, 'decline', JSON.stringify(third));
      assert.equal(third.decline_message, 'Declined by risk management');
      const blocked = await riskOf(third.public_id);
      assert.equal(blocked.reason, 'merchant rule: Cards per device');
      assert.equal(blocked.evaluation.velocity['distinct_cards:device:60:'], '3');

      // Another device (and a page without one) pays; the same device on the Checkout page is blocked.
      assert.equal((await hostedPayment('4111111111111111', OTHER)).result, 'success');
      const deviceless = await hostedPayment('4111111111111111', undefined);
      assert.equal(deviceless.result, 'success');
      // A payment without a device id shows no device count (not "0"): nothing was counted by a device.
      const noDevice = await riskOf(deviceless.public_id);
      assert.equal(noDevice.device_id, null);
      assert.equal('distinct_cards:device:60:' in noDevice.evaluation.velocity, false, JSON.stringify(noDevice.evaluation.velocity));
      assert.deepEqual(Object.keys(noDevice.evaluation.velocity).filter((k) => k.includes(':device:')), []);
      // A backtest still replays it (its device counter as 0), not as a payment whose screen did not read it.
      const replay = await adminCall(t.baseUrl, 'POST', `/admin/v1/risk/rules/${m.id}/backtest`, admin, { days: 1, rules: { rules: [
        { name: 'Cards per device', mode: 'active', when: { velocity: [{ measure: 'distinct_cards', by: 'device', window_minutes: 60, more_than: 2 }] }, then: { action: 'block' } },
      ] } });
      assert.equal(replay.status, 200, replay.text);
      assert.deepEqual(replay.body.not_replayable, {}, replay.text);
      const onPage = await pagePayment('5105105105105100', DEVICE);
      const pageRisk = await riskOf(onPage);
      assert.deepEqual([pageRisk.action, pageRisk.reason, pageRisk.evaluation.velocity['distinct_cards:device:60:']], ['block', 'merchant rule: Cards per device', '4']);

      // Listed from the blocked payment in one action: the device itself is blocked, even with a card it used before.
      const listed = await adminCall(t.baseUrl, 'POST', `/admin/v1/risk/lists/${m.id}/from-payment`, admin, { payment_id: third.public_id, list: 'block', kinds: ['device'], reason: 'card testing' });
      assert.equal(listed.status, 200, listed.text);
      assert.deepEqual(listed.body.map((e: { kind: string; value: string }) => [e.kind, e.value]), [['device', DEVICE]]);
      const again = await hostedPayment('4000056655665556', DEVICE);
      assert.equal(again.result, 'decline');
      assert.match((await riskOf(again.public_id)).reason, /list/i);

      // The listed device on the Checkout page's alternative-method form and its wallet form: blocked by the list too,
      // while the same methods from another device are not.
      const apm = await riskOf(await pageForm(['awcc', 'card'], '/pay', { method: 'awcc', email: 'success@gmail.com', device_id: DEVICE }, AWCC));
      assert.equal(apm.action, 'block', JSON.stringify(apm));
      assert.equal(apm.device_id, DEVICE, 'the evaluation shows the device the APM form posted');
      assert.match(apm.reason, /block list: device/);
      const apmOther = await riskOf(await pageForm(['awcc', 'card'], '/pay', { method: 'awcc', email: 'success@gmail.com', device_id: OTHER }, AWCC));
      assert.equal(apmOther.action, 'allow', JSON.stringify(apmOther));
      const kit = await walletKit(t);
      await configureWallets(t, admin, m.id, kit, true);
      const wallet = await riskOf(await pageForm(['googlepay', 'card'], '/wallet', { method: 'googlepay', wallet: 'googlepay', payment_token: kit.googleToken(), device_id: DEVICE }));
      assert.equal(wallet.action, 'block', JSON.stringify(wallet));
      assert.equal(wallet.device_id, DEVICE, 'the evaluation shows the device the wallet form posted');
      // The console's payment view reads it in the payment's risk section.
      const view = await adminCall(t.baseUrl, 'GET', `/admin/v1/payments/${wallet.payment_id}`, admin);
      assert.equal(view.status, 200, view.text);
      assert.equal(view.body.risk.device_id, DEVICE);
      assert.equal((await riskOf(apmOther.payment_id)).device_id, OTHER);
      assert.match(wallet.reason, /block list: device/);
      const walletOther = await riskOf(await pageForm(['googlepay', 'card'], '/wallet', { method: 'googlepay', wallet: 'googlepay', payment_token: kit.googleToken(), device_id: OTHER }));
      assert.equal(walletOther.action, 'allow', JSON.stringify(walletOther));

      const bad = await t.postJson('/hosted-fields/collect', { card_number: '4111111111111111', card_expiry: '01/38', card_cvv: '123', device_id: 'short' }, { origin: t.baseUrl, token: await openToken(t, newOrder('device-bad'), {}, m) });
      assert.equal(bad.status, 400, bad.text);
      assert.match(bad.text, /device_id/);
    });
  });
}
