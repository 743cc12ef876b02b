/**
 * The mail payout over S2S APM (CREDIT2VIRTUAL with the mail-payout brand), on both stores (issue 17): the
 * provider e-mails its link, the payout waits (PENDING) until the recipient answers the security question on the
 * link's page, then GET_TRANS_STATUS reads SETTLED and the CREDIT2VIRTUAL callback follows, signed with its own
 * formula. account_uuid comes from the merchant's payout MID: without it the payout is declined at once.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { storeKinds } from '../support/stores.ts';
import { startTestGateway, type TestGateway, type TestMerchant } from '../support/gateway.ts';
import { startListener, type Listener } from '../support/merchant.ts';
import { credit2VirtualCallbackHash, credit2VirtualHash, followUp, messages, orderId } from './support.ts';

for (const { kind, skip } of await storeKinds()) {
  describe(`S2S APM mail payout (${kind})`, { skip }, () => {
    let gw: TestGateway;
    let listener: Listener;
    let bare: TestMerchant;
    before(async () => {
      listener = await startListener();
      gw = await startTestGateway(kind, { workers: true, notificationUrl: listener.url, mids: [{ paymentMode: 'SMS/DMS', settings: { account_uuid: 'acc-s2s-1' } }] });
      bare = await gw.addMerchant({ notificationUrl: listener.url });
    });
    after(async () => {
      await gw?.close();
      await listener?.close();
    });

    const payout = (m: TestMerchant, email: string, extra: Record<string, unknown> = {}) => {
      const fields = {
        action: 'CREDIT2VIRTUAL', client_key: m.key, brand: 'mail-payout', order_id: orderId('MAIL'), order_amount: '40.00', order_currency: 'CAD',
        order_description: 'Refund of order 77', payee_first_name: 'Jane', payee_last_name: 'Roe', payee_email: email,
        parameters: { payer_first_name: 'Jane', payee_last_name: 'Roe', payer_email: email, SecurityQuestion: 'Name of my first pet?', SecurityQuestionAnswer: 'Rex' },
        ...extra,
      };
      return gw.postForm('/apm/post', { ...fields, hash: credit2VirtualHash(fields.order_id, fields.order_amount, fields.order_currency, m.password) });
    };

    const linkTo = async (email: string, orderNumberAmount: string): Promise<string> => {
      const box = (await (await fetch(`${gw.baseUrl}/sandbox/outbox/messages?to=${encodeURIComponent(email)}`)).json()) as { messages: { subject: string; link: string }[] };
      const mail = box.messages.find((m) => m.subject.includes(orderNumberAmount));
      assert.ok(mail, JSON.stringify(box));
      return mail.link;
    };

    it('waits for the recipient, then settles on the right answer and calls back CREDIT2VIRTUAL', async () => {
      const res = await payout(gw.merchant, 'success@gmail.com');
      assert.equal(res.status, 200, res.text);
      assert.deepEqual([res.body.action, res.body.result, res.body.status], ['CREDIT2VIRTUAL', 'UNDEFINED', 'PENDING']);
      const transId = res.body.trans_id as string;
      const waiting = await followUp(gw, 'GET_TRANS_STATUS', transId);
      assert.equal(waiting.body.status, 'PENDING');

      const link = await linkTo('success@gmail.com', '40.00 CAD');
      const page = await (await fetch(link)).text();
      assert.match(page, /Name of my first pet\?/);
      // The provider got the MID's account and the default fee option.
      assert.match(page, /id="claim-account">acc-s2s-1</);
      assert.match(page, /id="claim-fees">account_level</);
      const wrong = await fetch(link, { method: 'POST', body: new URLSearchParams({ answer: 'Tom', decision: 'approve' }) });
      assert.equal(wrong.status, 422);
      assert.match(await wrong.text(), /Attempts left: 2/);
      const right = await fetch(link, { method: 'POST', body: new URLSearchParams({ answer: 'REX', decision: 'approve' }) });
      assert.equal(right.status, 200);

      const settled = await followUp(gw, 'GET_TRANS_STATUS', transId);
      assert.equal(settled.body.status, 'SETTLED', settled.text);
      const [cb] = await listener.waitForMatching((c) => c.fields.trans_id === transId && c.fields.action === 'CREDIT2VIRTUAL', 1);
      assert.equal(cb!.fields.status, 'SETTLED');
      assert.equal(cb!.fields.result, 'SUCCESS');
      assert.equal(cb!.fields.hash, credit2VirtualCallbackHash(cb!.fields, gw.merchant.password));
    });

    it('declines at once without the MID account_uuid, and keeps the limits of its parameters', async () => {
      const res = await payout(bare, 'success@gmail.com');
      assert.deepEqual([res.body.result, res.body.status, res.body.decline_reason], ['DECLINED', 'DECLINED', 'MID setting missing: account_uuid']);
      const short = await payout(gw.merchant, 'success@gmail.com', { order_description: 'Fee' });
      assert.equal(short.status, 400);
      assert.deepEqual(messages(short), ['order_description: This value is too short. It should have 5 characters or more.']);
      const noQuestion = await payout(gw.merchant, 'success@gmail.com', { parameters: { payer_first_name: 'Jane', payee_last_name: 'Roe', payer_email: 'success@gmail.com', SecurityQuestionAnswer: 'Rex' } });
      assert.deepEqual(messages(noQuestion), ['parameters.SecurityQuestion: This value should not be blank.']);
      // The recipient's names may be 60 characters long (interface.md, the mail payout), on the request as in parameters.
      const long = 'R'.repeat(60);
      const named = await payout(gw.merchant, 'success@gmail.com', { payee_last_name: long, parameters: { payer_first_name: 'Jane', payee_last_name: long, payer_email: 'success@gmail.com', SecurityQuestion: 'Name of my first pet?', SecurityQuestionAnswer: 'Rex' } });
      assert.equal(named.status, 200, named.text);
      const tooLong = await payout(gw.merchant, 'success@gmail.com', { payee_last_name: `${long}R` });
      assert.deepEqual(messages(tooLong), ['payee_last_name: This value is too long. It should have 60 characters or less.']);
    });
  });
}
