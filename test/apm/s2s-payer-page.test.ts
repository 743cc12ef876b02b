/**
 * The gateway's payer page for S2S APM payments, over plain HTTP on both stores: the fields a SALE lacked, a
 * one-time code read from the sandbox outbox (JSON), the payer's cancel, and the way back to return_url.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { storeKinds } from '../support/stores.ts';
import { startTestGateway, type TestGateway } from '../support/gateway.ts';
import { followUp, qrMethod, representative, sale } from './support.ts';

const OTP = representative('otp', 's2s_apm', { pageFields: true });
const FIELDS = representative('extra_fields', 's2s_apm');
const LINK = representative('link', 's2s_apm');

for (const { kind, skip } of await storeKinds()) {
  describe(`S2S APM payer page (${kind})`, { skip }, () => {
    let gw: TestGateway;
    before(async () => {
      gw = await startTestGateway(kind);
    });
    after(() => gw.close());

    const get = async (path: string) => {
      const res = await fetch(`${gw.baseUrl}${path}`, { redirect: 'manual' });
      return { status: res.status, location: res.headers.get('location'), text: await res.text(), csp: res.headers.get('content-security-policy') };
    };
    const post = async (path: string, fields: Record<string, string>) => {
      const res = await fetch(`${gw.baseUrl}${path}`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(fields).toString(), redirect: 'manual' });
      return { status: res.status, location: res.headers.get('location'), text: await res.text() };
    };
    const status = async (transId: string) => (await followUp(gw, 'GET_TRANS_STATUS', transId)).body.status;

    it('collects the missing fields, then the provider decides; the payer goes back to return_url', async () => {
      const res = await sale(gw, FIELDS.key, { return_url: 'https://shop.example/back?order=1' });
      const page = await get(`/pay/${res.body.trans_id}`);
      assert.equal(page.status, 200);
      assert.match(page.csp ?? '', /script-src 'self'/);
      assert.equal(await status(res.body.trans_id), 'REDIRECT');
      const name = FIELDS.params.find((p) => p.collectOnPage)!.name;
      const invalid = await post(`/pay/${res.body.trans_id}/fields`, {});
      assert.equal(invalid.status, 422);
      assert.match(invalid.text, /role="alert"/);
      const done = await post(`/pay/${res.body.trans_id}/fields`, { [name]: 'M-100200' });
      assert.equal(done.status, 303);
      assert.equal(await status(res.body.trans_id), 'SETTLED');
      const back = await get(done.location!);
      assert.match(back.text, /https:\/\/shop\.example\/back\?order=1/);
    });

    it('takes the one-time code sent to the payer, read from the sandbox outbox', async () => {
      const phone = `+3816${String(Date.now()).slice(-8)}`;
      const res = await sale(gw, OTP.key, { parameters: { payer_phone: phone } });
      assert.equal(res.body.result, 'REDIRECT');
      assert.equal(await status(res.body.trans_id), 'PENDING');
      const page = await get(`/pay/${res.body.trans_id}`);
      assert.match(page.text, /name="code"/);
      assert.match(page.text, new RegExp(`\\*+${phone.slice(-4)}`));
      const outbox = await (await fetch(`${gw.baseUrl}/sandbox/outbox/messages?to=${encodeURIComponent(phone)}`)).json() as { messages: { channel: string; body: string }[] };
      assert.equal(outbox.messages[0]!.channel, 'sms');
      const code = /(\d{6})/.exec(outbox.messages[0]!.body)![1]!;
      const wrong = await post(`/pay/${res.body.trans_id}/code`, { code: code === '000000' ? '111111' : '000000' });
      assert.equal(wrong.status, 303);
      assert.match((await get(`/pay/${res.body.trans_id}`)).text, /The code is not correct\. Attempts left: 2\./);
      await post(`/pay/${res.body.trans_id}/code`, { code });
      assert.equal(await status(res.body.trans_id), 'SETTLED');
    });

    it('declines after three wrong codes', async () => {
      const res = await sale(gw, OTP.key, { parameters: { payer_phone: '+381600000001' } });
      for (let i = 0; i < 3; i++) await post(`/pay/${res.body.trans_id}/code`, { code: 'abc' });
      const answer = await followUp(gw, 'GET_TRANS_STATUS', res.body.trans_id);
      assert.deepEqual([answer.body.status, answer.body.decline_reason], ['DECLINED', 'Too many wrong codes']);
    });

    it('sends the link to the payer e-mail and keeps it in the outbox; the payer may cancel on the page', async () => {
      const email = `payer-${Date.now()}@example.com`;
      const res = await sale(gw, LINK.key, { payer_email: email });
      const outbox = await get(`/sandbox/outbox?to=${encodeURIComponent(email)}`);
      assert.match(outbox.text, /Open the link/);
      const cancelled = await post(`/pay/${res.body.trans_id}/cancel`, {});
      assert.equal(cancelled.status, 303);
      const answer = await followUp(gw, 'GET_TRANS_STATUS', res.body.trans_id);
      assert.deepEqual([answer.body.status, answer.body.decline_reason], ['DECLINED', 'Cancelled by payer']);
      // The link in the e-mail no longer pays.
      const link = /href="([^"]*\/sandbox\/apm\/[^"]+)"/.exec(outbox.text)![1]!;
      assert.match((await get(new URL(link).pathname)).text, /Payment not made/);
    });

    it('shows the QR code to a payer the merchant redirected, and the payment status as JSON', async () => {
      const res = await sale(gw, qrMethod().key);
      const page = await get(`/pay/${res.body.trans_id}`);
      assert.match(page.text, /<img[^>]*id="apm-qr-image"/);
      assert.match(page.text, /data:image\/svg\+xml;base64,/);
      const json = await (await fetch(`${gw.baseUrl}/pay/${res.body.trans_id}/status`)).json();
      assert.deepEqual(json, { state: 'waiting' });
    });
  });
}
