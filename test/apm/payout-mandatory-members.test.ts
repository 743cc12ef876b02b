/**
 * Issue 25 items 20 and 21, over HTTP on both stores.
 * 20: a Pix payout (CREDIT2VIRTUAL, brand=pix-payout) needs source_account_number and branch_identifier, from the
 *     request or the MID (interface spec, instant-pay payout: "all mandatory"); with neither it is declined before
 *     the provider is asked.
 * 21: the merchant's connector options of the admin panel are used under the MID's settings: the mail payout's
 *     account_uuid, and the token call's private key of the reference-and-authorization family.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { storeKinds } from '../support/stores.ts';
import { startTestGateway, type TestGateway, type TestMerchant } from '../support/gateway.ts';
import { startListener, type Listener } from '../support/merchant.ts';
import { operatorWithRole, type AdminCall } from '../admin/support.ts';
import { credit2VirtualHash, followUp, orderId, sale } from './support.ts';
import { merchantWithProvider } from './provider-support.ts';

for (const { kind, skip } of await storeKinds()) {
  describe(`payout members from the request, the MID or the merchant's connector options (${kind})`, { skip }, () => {
    let gw: TestGateway;
    let listener: Listener;
    let admin: AdminCall;
    before(async () => {
      listener = await startListener();
      gw = await startTestGateway(kind, { workers: true, notificationUrl: listener.url });
      admin = (await operatorWithRole(gw, 'admin')).call;
    });
    after(async () => {
      await gw?.close();
      await listener?.close();
    });

    const credit2Virtual = (m: TestMerchant, brand: string, fields: Record<string, unknown>) => {
      const f = { action: 'CREDIT2VIRTUAL', client_key: m.key, brand, order_id: orderId('PAYOUT'), order_amount: '40.00', order_currency: 'BRL', order_description: 'Payout of order 77', ...fields };
      return gw.postForm('/apm/post', { ...f, hash: credit2VirtualHash(f.order_id, f.order_amount, f.order_currency, m.password) });
    };
    const pix = (m: TestMerchant, parameters: Record<string, string>) =>
      credit2Virtual(m, 'pix-payout', { payee_first_name: 'Joao', payee_last_name: 'Silva', payee_email: 'success@gmail.com', parameters: { key: '12345678901', ...parameters } });
    const midOf = async (m: TestMerchant) => (await admin('GET', `/admin/v1/merchants/${m.id}/mids`)).body.mids[0].id as string;

    it('Pix payout: declined without source_account_number and branch_identifier in the request or the MID', async () => {
      const m = await gw.addMerchant({ notificationUrl: listener.url });
      const bare = await pix(m, {});
      assert.equal(bare.status, 200, bare.text);
      assert.deepEqual([bare.body.result, bare.body.status, bare.body.decline_reason],
        ['DECLINED', 'DECLINED', 'Missing in the request and the MID settings: source_account_number, branch_identifier']);
      const half = await pix(m, { source_account_number: '12345-6' });
      assert.equal(half.body.decline_reason, 'Missing in the request and the MID settings: branch_identifier');
      // Both in the request: it goes.
      const sent = await pix(m, { source_account_number: '12345-6', branch_identifier: '0001' });
      assert.notEqual(sent.body.status, 'DECLINED', sent.text);
      // Both in the MID: it goes with the key alone.
      const patched = await admin('PATCH', `/admin/v1/merchants/${m.id}/mids/${await midOf(m)}`, { settings: { source_account_number: '12345-6', branch_identifier: '0001' } });
      assert.equal(patched.status, 200, patched.text);
      const fromMid = await pix(m, {});
      assert.notEqual(fromMid.body.status, 'DECLINED', fromMid.text);
      const status = await followUp(gw, 'GET_TRANS_STATUS', fromMid.body.trans_id, {}, m);
      assert.equal(status.status, 200, status.text);
      assert.notEqual(status.body.status, 'DECLINED');
    });

    it("mail payout: the merchant's connector_options.mail_payout.account_uuid stands in for the MID's; the MID's wins", async () => {
      const m = await gw.addMerchant({ notificationUrl: listener.url });
      const mail = (email: string) => credit2Virtual(m, 'mail-payout', {
        order_currency: 'CAD', payee_first_name: 'Jane', payee_last_name: 'Roe', payee_email: email,
        parameters: { payer_first_name: 'Jane', payee_last_name: 'Roe', payer_email: email, SecurityQuestion: 'Name of my first pet?', SecurityQuestionAnswer: 'Rex' },
      });
      const before = await mail('success@gmail.com');
      assert.equal(before.body.decline_reason, 'MID setting missing: account_uuid');
      const uuid = '2f1c7a4e-5b7d-4c1e-9a8b-3d2e1f0a9b8c';
      const set = await admin('PATCH', `/admin/v1/merchants/${m.id}/settings`, { connector_options: { mail_payout: { account_uuid: uuid, fee_calculation_method: 'transaction_level' } } });
      assert.equal(set.status, 200, set.text);
      const email = `opt-${Date.now()}@gmail.com`;
      const res = await mail(email);
      assert.deepEqual([res.body.result, res.body.status], ['UNDEFINED', 'PENDING'], res.text);
      const link = await linkTo(email);
      const page = await (await fetch(link)).text();
      assert.match(page, new RegExp(`id="claim-account">${uuid}<`));
      assert.match(page, /id="claim-fees">transaction_level</);
      // A MID setting wins over the merchant's option.
      await admin('PATCH', `/admin/v1/merchants/${m.id}/mids/${await midOf(m)}`, { settings: { account_uuid: 'acc-of-the-mid' } });
      const email2 = `mid-${Date.now()}@gmail.com`;
      assert.equal((await mail(email2)).body.status, 'PENDING');
      assert.match(await (await fetch(await linkTo(email2))).text(), /id="claim-account">acc-of-the-mid</);
    });

    it("token call: a reference-auth MID without its own private key signs with the merchant's token_call.private_key", async () => {
      const m = await merchantWithProvider(gw, admin, 'reference-auth', { notificationUrl: listener.url });
      // A second MID of the same account, without a private key: the merchant's option supplies it.
      const noKey = await gw.addMerchant({ notificationUrl: listener.url });
      const created = await admin('POST', `/admin/v1/merchants/${noKey.id}/mids`, {
        connector: 'apm-provider', name: 'token MID', payment_mode: 'SMS/DMS',
        settings: { kind: 'reference-auth', base_url: `${gw.baseUrl}/sandbox/apm-provider` }, credentials: { api_key: m.acc.api_key },
      });
      assert.equal(created.status, 201, created.text);
      const without = await sale(gw, 'reference-auth', {}, noKey);
      assert.equal(without.body.decline_reason, "No private key for the token call (the MID's private_key or the merchant's token_call option)", without.text);
      const set = await admin('PATCH', `/admin/v1/merchants/${noKey.id}/settings`, { connector_options: { token_call: { private_key: m.acc.private_key } } });
      assert.equal(set.status, 200, set.text);
      const res = await sale(gw, 'reference-auth', {}, noKey);
      assert.equal(res.body.result, 'REDIRECT', res.text);
    });

    async function linkTo(email: string): Promise<string> {
      const box = (await (await fetch(`${gw.baseUrl}/sandbox/outbox/messages?to=${encodeURIComponent(email)}`)).json()) as { messages: { link: string }[] };
      assert.ok(box.messages[0], JSON.stringify(box));
      return box.messages[0].link;
    }
  });
}
