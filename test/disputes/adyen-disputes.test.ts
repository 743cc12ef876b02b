/**
 * Adyen's dispute notifications (issue 29) over HTTP, from the webhook description's own examples
 * (Webhooks-v1.json), each pointed at a payment of ours and HMAC-signed as Adyen signs: a chargeback debits the
 * merchant and calls it back, a reversal credits it, a second chargeback debits again, pre-arbitration lost
 * closes it; a notice sent twice changes nothing; one for an unknown payment is kept and listed as unmatched;
 * a tampered one is refused (401).
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { storeKinds } from '../support/stores.ts';
import { startTestGateway, type TestGateway } from '../support/gateway.ts';
import { adyenUnavailable, example, webhookExample } from '../connectors/adyen-support.ts';
import { followUp, sale, startListener, type Listener } from '../s2s-card/support.ts';
import { adminClient, type AdminCall } from '../admin/support.ts';

const HMAC_KEY = '44782DEF547AAA06C910C43932B1EB0C71FC68D9D0C057550C48EC2ACF6BA056';
type Json = Record<string, any>;

/** Adyen's signing, written from its description: HMAC-SHA256 (hex key) over the eight fields joined with ':', base64. */
function sign(item: Json): void {
  const fields = [item.pspReference, item.originalReference ?? '', item.merchantAccountCode, item.merchantReference, String(item.amount.value), item.amount.currency, item.eventCode, item.success];
  item.additionalData = { ...item.additionalData, hmacSignature: createHmac('sha256', Buffer.from(HMAC_KEY, 'hex')).update(fields.join(':'), 'utf8').digest('base64') };
}

/** The description's example of an event code, for our payment (reference, amount in minor units), signed. */
function notice(eventCode: string, paymentId: string, minor: number, currency = 'USD'): Json {
  const body = webhookExample(`post-${eventCode}-${eventCode.toLowerCase()}`);
  const item = body.notificationItems[0].NotificationRequestItem;
  Object.assign(item, { merchantReference: paymentId, amount: { value: minor, currency } });
  sign(item);
  return body;
}

for (const { kind, skip } of await storeKinds()) {
  describe(`disputes: Adyen's notifications (${kind})`, { skip: skip || adyenUnavailable || false }, () => {
    let gw: TestGateway;
    let admin: AdminCall;
    let notifications: Listener;
    let acquirer: Server;
    const midId = crypto.randomUUID();
    before(async () => {
      // Adyen's /payments, answering the description's card-direct example for the request's reference and amount.
      acquirer = createServer((req, res) => {
        let raw = '';
        req.on('data', (c) => { raw += c; });
        req.on('end', () => {
          const sent = JSON.parse(raw || '{}');
          res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ ...example('post-payments-card-direct-200'), merchantReference: sent.reference, amount: sent.amount, pspReference: `PSP-${sent.reference}` }));
        });
      });
      await new Promise<void>((resolve) => acquirer.listen(0, '127.0.0.1', resolve));
      notifications = await startListener('OK');
      gw = await startTestGateway(kind, {
        workers: true, notificationUrl: notifications.url, adminToken: `adyen-disputes-${kind}`,
        mids: [{ id: midId, paymentMode: 'SMS/DMS', connector: 'adyen', settings: { baseUrl: `http://127.0.0.1:${(acquirer.address() as AddressInfo).port}`, merchantAccount: 'YOUR_MERCHANT_ACCOUNT', environment: 'test' }, credentials: { apiKey: 'k', hmacKey: HMAC_KEY } }],
      });
      admin = adminClient(gw.baseUrl, `adyen-disputes-${kind}`);
    });
    after(async () => {
      await gw?.close();
      await notifications?.close();
      acquirer?.close();
    });

    const post = (body: Json) => fetch(`${gw.baseUrl}/connectors/adyen/${midId}/notify`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const disputesOf = async (paymentId: string) => (await admin('GET', `/admin/v1/disputes?merchant_id=${gw.merchant.id}`)).body.filter((d: { payment_id: string }) => d.payment_id === paymentId);
    const moneyOf = async (paymentId: string) => (await admin('GET', `/admin/v1/payments/${paymentId}/ledger`)).body.entries
      .filter((e: { ref: string; account: string }) => e.ref.startsWith('dispute:') && e.account.endsWith(':available')).map((e: { event: string; amount: string }) => `${e.event} ${e.amount}`);

    it('chargeback, reversed, second chargeback, pre-arbitration lost: the dispute, the money and the callback follow', async () => {
      const paid = await sale(gw, { order_amount: '20.00' });
      const id = paid.body.trans_id as string;
      assert.equal(paid.body.status, 'SETTLED', paid.text);

      const cb = notice('CHARGEBACK', id, 1000);
      const first = await post(cb);
      assert.equal(first.status, 200);
      assert.equal(await first.text(), '[accepted]');
      let [dispute] = await disputesOf(id);
      assert.deepEqual({ stage: dispute.stage, status: dispute.status, amount: dispute.amount, reason: dispute.reason_code, category: dispute.category, due: dispute.due_at, source: dispute.source },
        { stage: 'first_chargeback', status: 'evidence_required', amount: '10.00', reason: '4853', category: 'consumer_dispute', due: '2021-07-31T01:03:07.000Z', source: 'adyen' });
      assert.equal((await followUp(gw, 'GET_TRANS_STATUS', id)).body.status, 'CHARGEBACK');

      assert.equal((await post(cb)).status, 200, 'sent again');
      assert.deepEqual(await moneyOf(id), ['chargeback 10.00'], 'a duplicate changes nothing');

      await post(notice('CHARGEBACK_REVERSED', id, 1000));
      await post(notice('SECOND_CHARGEBACK', id, 1000));
      await post(notice('PREARBITRATION_LOST', id, 1000));
      [dispute] = await disputesOf(id);
      assert.deepEqual([dispute.stage, dispute.status], ['second_chargeback', 'lost']);
      assert.deepEqual(await moneyOf(id), ['chargeback 10.00', 'chargeback_reversal -10.00', 'chargeback 10.00']);
      const history = (await admin('GET', `/admin/v1/disputes/${dispute.id}`)).body.history.map((h: { event: string; details: { acquirer_event: string } }) => h.details.acquirer_event);
      assert.deepEqual(history, ['CHARGEBACK', 'CHARGEBACK_REVERSED', 'SECOND_CHARGEBACK', 'PREARBITRATION_LOST']);
      const deadline = Date.now() + 10_000;
      while (notifications.received.filter((r) => r.fields.trans_id === id && r.fields.action === 'CHARGEBACK').length < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      const callbacks = notifications.received.filter((r) => r.fields.trans_id === id && r.fields.action === 'CHARGEBACK');
      assert.equal(callbacks.length, 2, 'one CHARGEBACK callback per debit');
      assert.equal(callbacks[0]!.fields.reason_code, '4853');
      assert.equal(callbacks[0]!.fields.bank_date, '2021-01-01');
    });

    it('every dispute example of the description verifies and is accepted; for an unknown payment each is kept as unmatched', async () => {
      for (const code of ['REQUEST_FOR_INFORMATION', 'NOTIFICATION_OF_CHARGEBACK', 'CHARGEBACK', 'SECOND_CHARGEBACK', 'PREARBITRATION_WON', 'PREARBITRATION_LOST', 'CHARGEBACK_REVERSED', 'INFORMATION_SUPPLIED', 'DISPUTE_DEFENSE_PERIOD_ENDED']) {
        const body = webhookExample(`post-${code}-${code.toLowerCase()}`);
        sign(body.notificationItems[0].NotificationRequestItem);
        const res = await post(body);
        assert.equal(res.status, 200, `${code}: ${await res.clone().text()}`);
        assert.equal((await post(body)).status, 200);
      }
      const unmatched = (await admin('GET', '/admin/v1/disputes/unmatched')).body.filter((n: { payment_ref: string }) => ['YOUR_MERCHANT_REFERENCE', 'YOUR_REFERENCE'].includes(n.payment_ref));
      assert.equal(unmatched.length, 9, 'each kept once');
      assert.ok(unmatched.every((n: Json) => n.mid_id === midId && n.mid_name === 'MID SMS/DMS' && n.mode === 'test'), 'the MID whose endpoint it reached, a sandbox merchant\'s');
      assert.ok(unmatched.every((n: { payload: Json }) => n.payload.additionalData?.hmacSignature === undefined), 'the signature is not kept');
    });

    it('a tampered notice is refused and changes nothing', async () => {
      const id = (await sale(gw, { order_amount: '5.00' })).body.trans_id as string;
      const body = notice('CHARGEBACK', id, 500);
      body.notificationItems[0].NotificationRequestItem.amount.value = 1;
      assert.equal((await post(body)).status, 401);
      assert.deepEqual(await disputesOf(id), []);
    });
  });
}
