/**
 * The QR method on S2S APM, on both stores, per provider state: the SALE answers with redirect_params.qr_code
 * (Base64 of the QR content), pending reads PENDING, executed or the bank callback ACSC gives SETTLED, rejected
 * or RJCT gives DECLINED, and an unpaid code expires after its lifetime on the injected clock.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { ManualClock } from '../../src/domain/clock.ts';
import { storeKinds } from '../support/stores.ts';
import { startTestGateway, type TestGateway } from '../support/gateway.ts';
import { startListener, type Listener } from '../support/merchant.ts';
import { bankCallback, callbackHash, followUp, messages, qrMethod, sale } from './support.ts';

const QR = qrMethod();
const LIFETIME_MS = Number(QR.experienceOptions?.qrLifetimeSeconds ?? 60) * 1000;

for (const { kind, skip } of await storeKinds()) {
  describe(`S2S APM QR method ${QR.key} (${kind})`, { skip }, () => {
    let gw: TestGateway;
    let listener: Listener;
    const clock = new ManualClock('2030-03-01T09:00:00Z');
    before(async () => {
      listener = await startListener();
      gw = await startTestGateway(kind, { workers: true, clock, notificationUrl: listener.url });
    });
    after(async () => {
      await gw?.close();
      await listener?.close();
    });

    const qrSale = async (overrides: Record<string, unknown> = {}) => {
      const res = await sale(gw, QR.key, { order_currency: 'RSD', order_amount: '3596.13', ...overrides });
      assert.equal(res.status, 200, res.text);
      return res.body;
    };
    const status = async (transId: string) => (await followUp(gw, 'GET_TRANS_STATUS', transId)).body.status;
    /** The bank executes or rejects without telling anyone (its callback is what the test sends). */
    const bankSets = (transId: string, state: 'executed' | 'rejected') =>
      gw.store.db.query('UPDATE sandbox_apm_payments SET state = $2 WHERE end_to_end_id = $1', [transId, state]);
    const finalCallback = async (transId: string, s: string) => {
      const [cb] = await listener.waitForMatching((c) => c.fields.trans_id === transId && c.fields.status === s, 1);
      assert.equal(cb!.fields.hash, callbackHash(cb!.raw, gw.merchant.password));
      return cb!;
    };

    it('answers the SALE with redirect_params.qr_code as Base64 of the QR content', async () => {
      const body = await qrSale();
      assert.equal(body.result, 'REDIRECT');
      assert.equal(body.redirect_method, 'GET');
      assert.equal(body.redirect_url, `${gw.baseUrl}/pay/${body.trans_id}`);
      const content = Buffer.from(body.redirect_params.qr_code, 'base64').toString('utf8');
      assert.match(content, /^K:PR\|V:01\|/);
      assert.match(content, /\|I:RSD3596,13\|/);
      assert.equal(Buffer.from(content, 'utf8').toString('base64'), body.redirect_params.qr_code);
    });

    it('reads provider status pending as PENDING', async () => {
      const body = await qrSale();
      assert.equal(body.status, 'PENDING');
      assert.equal(await status(body.trans_id), 'PENDING');
    });

    it('settles on the bank callback ACSC once the bank executed the payment', async () => {
      const body = await qrSale();
      await bankSets(body.trans_id, 'executed');
      const res = await bankCallback(gw, body.trans_id, 'ACSC');
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(res.body, { result: 'OK', trans_id: body.trans_id, status: 'SETTLED' });
      assert.equal(await status(body.trans_id), 'SETTLED');
      const cb = await finalCallback(body.trans_id, 'SETTLED');
      assert.equal(cb.fields.result, 'SUCCESS');
    });

    it('declines on the bank callback RJCT once the bank rejected the payment', async () => {
      const body = await qrSale();
      await bankSets(body.trans_id, 'rejected');
      assert.equal((await bankCallback(gw, body.trans_id, 'RJCT')).body.status, 'DECLINED');
      assert.equal(await status(body.trans_id), 'DECLINED');
      await finalCallback(body.trans_id, 'DECLINED');
    });

    it('settles once when bank callbacks and status lookups race', async () => {
      const body = await qrSale();
      await bankSets(body.trans_id, 'executed');
      await Promise.all([...Array.from({ length: 4 }, () => bankCallback(gw, body.trans_id, 'ACSC')), ...Array.from({ length: 4 }, () => status(body.trans_id))]);
      const rows = await gw.store.db.query<{ n: bigint }>("SELECT count(*) AS n FROM callbacks WHERE payment_id = $1 AND fields->>'status' = 'SETTLED'", [body.trans_id]);
      assert.equal(Number(rows[0]!.n), 1);
      const tx = await gw.store.db.query<{ status: string }>('SELECT status FROM transactions WHERE payment_id = $1', [body.trans_id]);
      assert.deepEqual(tx.map((t) => t.status), ['success']);
    });

    it('settles by status lookup when the provider reports executed', async () => {
      const body = await qrSale();
      await bankSets(body.trans_id, 'executed');
      assert.equal(await status(body.trans_id), 'SETTLED');
    });

    it('declines by status lookup when the provider reports rejected', async () => {
      const body = await qrSale();
      await bankSets(body.trans_id, 'rejected');
      const res = await followUp(gw, 'GET_TRANS_STATUS', body.trans_id);
      assert.equal(res.body.status, 'DECLINED');
      assert.ok(res.body.decline_reason);
    });

    it('ignores a bank callback the provider does not confirm (a forged ACSC settles nothing)', async () => {
      const body = await qrSale();
      const res = await bankCallback(gw, body.trans_id, 'ACSC');
      assert.equal(res.body.status, 'PENDING');
      assert.equal(await status(body.trans_id), 'PENDING');
    });

    it('is paid through the sandbox bank app, which posts ACSC itself; fail@gmail.com makes the bank refuse (RJCT)', async () => {
      const paid = await qrSale();
      const ref = (await gw.store.db.query<{ reference: string }>('SELECT reference FROM sandbox_apm_payments WHERE end_to_end_id = $1', [paid.trans_id]))[0]!.reference;
      const app = await fetch(`${gw.baseUrl}/sandbox/apm/${ref}/app`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'decision=approve' });
      assert.match(await app.text(), /Payment confirmed/);
      assert.equal(await status(paid.trans_id), 'SETTLED');
      const refused = await qrSale({ payer_email: 'fail@gmail.com' });
      const ref2 = (await gw.store.db.query<{ reference: string }>('SELECT reference FROM sandbox_apm_payments WHERE end_to_end_id = $1', [refused.trans_id]))[0]!.reference;
      await fetch(`${gw.baseUrl}/sandbox/apm/${ref2}/app`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'decision=approve' });
      assert.equal(await status(refused.trans_id), 'DECLINED');
    });

    it('expires an unpaid QR code after its lifetime: DECLINED, and the bank can no longer pay it', async () => {
      const body = await qrSale({ order_currency: 'EUR', order_amount: '12.00' });
      clock.advance(LIFETIME_MS - 1000);
      assert.equal(await status(body.trans_id), 'PENDING');
      clock.advance(1000);
      const res = await followUp(gw, 'GET_TRANS_STATUS', body.trans_id);
      assert.deepEqual([res.body.status, res.body.decline_reason], ['DECLINED', 'QR code expired']);
      const cb = await finalCallback(body.trans_id, 'DECLINED');
      assert.equal(cb.fields.decline_reason, 'QR code expired');
      const ref = (await gw.store.db.query<{ reference: string; state: string }>('SELECT reference, state FROM sandbox_apm_payments WHERE end_to_end_id = $1', [body.trans_id]))[0]!;
      assert.equal(ref.state, 'rejected');
      const late = await fetch(`${gw.baseUrl}/sandbox/apm/${ref.reference}/app`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'decision=approve' });
      assert.match(await late.text(), /The QR code has expired\./);
      assert.equal(await status(body.trans_id), 'DECLINED');
    });

    it('expires on the bank callback path too, when nobody asked in time', async () => {
      const body = await qrSale({ order_currency: 'MKD', order_amount: '700.00' });
      clock.advance(LIFETIME_MS + 5000);
      assert.equal((await bankCallback(gw, body.trans_id, 'ACSC')).body.status, 'DECLINED');
    });

    it('accepts only its currencies (EUR, RSD, BAM, MKD)', async () => {
      for (const currency of ['EUR', 'RSD', 'BAM', 'MKD']) assert.equal((await sale(gw, QR.key, { order_currency: currency, order_amount: '10.00' })).body.result, 'REDIRECT', currency);
      const usd = await sale(gw, QR.key, { order_currency: 'USD', order_amount: '10.00' });
      assert.deepEqual(messages(usd), ['order_currency: The value you selected is not a valid choice.']);
    });

    it('answers malformed bank callbacks with D3 errors', async () => {
      const unknown = await bankCallback(gw, '00000000-0000-4000-8000-000000000000', 'ACSC');
      assert.deepEqual([unknown.status, unknown.body.error_message], [400, 'Transaction does not exist.']);
      const badStatus = await gw.postForm('/apm/bank/callback', { EndToEndId: 'x', TxSts: 'PAID' });
      assert.deepEqual(messages(badStatus), ['TxSts: The value you selected is not a valid choice.']);
      const json = await gw.postJson('/apm/bank/callback', '{"EndToEndId":');
      assert.equal(json.status, 400);
    });
  });
}
