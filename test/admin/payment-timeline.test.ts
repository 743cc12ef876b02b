/**
 * Issue 31 items 6 and 10 over the admin API: a payment's timeline (the tries of its Checkout order, its attempt,
 * the acquirer's answer, a refund with the operator and the reason given, its callbacks' deliveries, an operator's
 * note and a resend, in time order, the status in words) and internal notes (audited, permission payments.note).
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { storeKinds } from '../support/stores.ts';
import { startTestGateway, type TestGateway } from '../support/gateway.ts';
import { checkoutHash, startListener, type Listener } from '../support/merchant.ts';
import { adminClient, type AdminCall } from './support.ts';

const TOKEN = 'timeline-admin-token';

for (const { kind, skip } of await storeKinds()) {
  describe(`admin: payment timeline and notes (${kind})`, { skip }, () => {
    let t: TestGateway;
    let listener: Listener;
    let admin: AdminCall;
    /** The gateway's clock runs this far ahead of the real one (the session expiry test moves it). */
    let skewMs = 0;
    before(async () => {
      listener = await startListener();
      t = await startTestGateway(kind, { workers: true, notificationUrl: listener.url, adminToken: TOKEN, clock: { now: () => new Date(Date.now() + skewMs) } });
      admin = adminClient(t.baseUrl, TOKEN);
    });
    after(async () => {
      await t?.close();
      await listener?.close();
    });

    /** A Checkout order paid on the second try: a declined card first (expiry 02), then the success card. */
    async function orderPaidOnSecondTry(number: string) {
      const order = { number, amount: '20.00', currency: 'EUR', description: 'Timeline test' };
      const res = await t.postJson('/api/v1/session', {
        merchant_key: t.merchant.key, operation: 'purchase', order,
        success_url: 'https://shop.example/ok', cancel_url: 'https://shop.example/no',
        hash: checkoutHash(t.merchant.password, order.number, order.amount, order.currency, order.description),
      });
      const pay = (expiry: string) => fetch(`${t.baseUrl}${new URL(res.body.redirect_url).pathname}/pay`, {
        method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, redirect: 'manual',
        body: new URLSearchParams({ card_number: '4111111111111111', card_expiry: expiry, card_cvv: '123', card_holder: 'Max Muster' }).toString(),
      });
      await pay('02/38');
      await pay('01/38');
      const paid = await listener.waitForMatching((c) => c.fields.order_number === number && c.fields.status === 'success', 1, 15_000);
      return paid[0]!.fields.payment_id!;
    }

    it('tells the payment\'s story in time order, with the order\'s tries and the status in words', async () => {
      const id = await orderPaidOnSecondTry(`timeline-${kind}`);
      const refund = await admin('POST', `/admin/v1/payments/${id}/refund`, { amount: '5.00', reason: 'Customer request: parcel returned' });
      assert.equal(refund.status, 200, refund.text);
      assert.equal(refund.body.result, 'approved');
      const note = await admin('POST', `/admin/v1/payments/${id}/notes`, { note: 'Payer called about the parcel.' });
      assert.equal(note.status, 200, note.text);
      await listener.waitForMatching((c) => c.fields.payment_id === id && c.fields.type === 'refund', 1, 15_000);

      const res = await admin('GET', `/admin/v1/payments/${id}/timeline`);
      assert.equal(res.status, 200, res.text);
      const tl = res.body;
      assert.deepEqual(tl.status, { code: 'settled', words: 'Partially refunded', explanation: '5.00 EUR of 20.00 EUR refunded.' });
      assert.equal(tl.order.length, 2, 'both tries of the order');
      assert.equal(tl.order[0].status.words, 'Declined');
      assert.equal(tl.order[1].current, true);
      assert.equal(tl.attempts.length, 1);
      const texts = tl.steps.map((s: any) => s.text);
      const at = (re: RegExp) => texts.findIndex((x: string) => re.test(x));
      assert.ok(at(/^Created: purchase of 20\.00 EUR/) === 0, texts.join('\n'));
      assert.ok(at(/^Attempt 1: 20\.00 EUR sent to/) > 0, texts.join('\n'));
      assert.ok(at(/^Acquirer approved/) > at(/^Attempt 1/), texts.join('\n'));
      const refundStep = tl.steps.find((s: any) => s.kind === 'money');
      assert.match(refundStep.text, /^Refund of 5\.00 EUR: approved; reason: Customer request: parcel returned$/);
      assert.equal(refundStep.by, 'admin@localhost');
      assert.ok(tl.steps.some((s: any) => s.kind === 'callback' && /"sale \(success\)", delivery attempt 1: delivered \(HTTP 200/.test(s.text)), texts.join('\n'));
      const noteStep = tl.steps.find((s: any) => s.kind === 'note');
      assert.equal(noteStep.text, 'Note: Payer called about the parcel.');
      const times = tl.steps.map((s: any) => Date.parse(s.at));
      assert.deepEqual(times, [...times].sort((a, b) => a - b), 'in time order');

      const detail = await admin('GET', `/admin/v1/payments/${id}`);
      assert.equal(detail.body.transactions.find((x: any) => x.type === 'refund').reason_given, 'Customer request: parcel returned');
      const audit = await admin('GET', `/admin/v1/audit-log?action=payment.note&object_id=${id}`);
      assert.equal(audit.body.entries[0].details.note, 'Payer called about the parcel.');
    });

    it('calls an unpaid Checkout payment abandoned once its session expired (session_expiry), not after a fixed hour', async () => {
      const order = { number: `timeline-expiry-${kind}`, amount: '12.00', currency: 'EUR', description: 'Session expiry' };
      const opened = await t.postJson('/api/v1/session', {
        merchant_key: t.merchant.key, operation: 'purchase', order, session_expiry: 720,
        success_url: 'https://shop.example/ok', cancel_url: 'https://shop.example/no',
        hash: checkoutHash(t.merchant.password, order.number, order.amount, order.currency, order.description),
      });
      assert.equal(opened.status, 200, opened.text);
      const found = await admin('GET', `/admin/v1/payments?order_id=${order.number}`);
      const id = found.body.payments[0].id as string;
      const status = async () => (await admin('GET', `/admin/v1/payments/${id}/timeline`)).body.status;
      try {
        skewMs = 2 * 3600_000;
        const waiting = await status();
        assert.equal(waiting.words, 'Waiting for the payer', 'two hours in, a 12-hour session still waits for its payer');
        assert.match(waiting.explanation, /the Checkout session expires at \d{4}-\d\d-\d\dT/);
        skewMs = 12 * 3600_000 + 60_000;
        const abandoned = await status();
        assert.equal(abandoned.words, 'Abandoned');
        assert.match(abandoned.explanation, /^The payer never finished paying: the Checkout session expired at /);
      } finally {
        skewMs = 0;
      }
    });

    it('refuses an empty note, an unknown payment, and a viewer\'s note', async () => {
      const id = (await admin('GET', '/admin/v1/payments?limit=1')).body.payments[0].id;
      assert.equal((await admin('POST', `/admin/v1/payments/${id}/notes`, { note: '' })).status, 400);
      assert.equal((await admin('POST', `/admin/v1/payments/${id}/notes`, { note: '   ' })).status, 400);
      assert.equal((await admin('POST', '/admin/v1/payments/00000000-0000-4000-8000-000000000000/notes', { note: 'x' })).status, 404);
      assert.equal((await admin('GET', '/admin/v1/payments/00000000-0000-4000-8000-000000000000/timeline')).status, 404);
      const user = await admin('POST', '/admin/v1/users', { email: `viewer-notes-${kind}@example.com`, role: 'viewer' });
      const token = await admin('POST', `/admin/v1/users/${user.body.id}/tokens`, {});
      const viewer = adminClient(t.baseUrl, token.body.token);
      assert.equal((await viewer('POST', `/admin/v1/payments/${id}/notes`, { note: 'x' })).status, 403);
      assert.equal((await viewer('GET', `/admin/v1/payments/${id}/timeline`)).status, 200);
    });
  });
}
