/**
 * Disputes through the `akurateco` connector (issue 29): a second Portcullis plays the upstream. Its operator
 * raises a chargeback on its payment; its S2S CHARGEBACK callback (Formula 2, amount, chargeback_date, bank_date,
 * reason_code) reaches our notification endpoint, is verified with the family's formula and becomes our dispute:
 * the merchant is debited, our payment turns CHARGEBACK and our merchant gets our own CHARGEBACK callback. The same
 * callback again changes nothing; a forged one is refused (401) and changes nothing.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { storeKinds } from '../support/stores.ts';
import { CARD, EMAIL, f2, followUp, sale, startListener, type Listener } from '../s2s-card/support.ts';
import { startChain, upstreamPayments, ourPayment, waitUntil, type Chain } from '../connectors/support.ts';
import { adminClient, type AdminCall } from '../admin/support.ts';
import { apmCallbackHash } from '../../src/domain/signatures.ts';

/**
 * The upstream's dispatcher gives our endpoint 2 s (test gateways); on a loaded machine a first delivery can miss
 * that and its retry comes a minute later (callback-policy's schedule): wait for the retry, not longer.
 */
const DELIVERY_MS = 90_000;

for (const { kind, skip } of await storeKinds()) {
  describe(`disputes: the akurateco connector's CHARGEBACK callbacks (${kind})`, { skip }, () => {
    let chain: Chain;
    let merchantCallbacks: Listener;
    let upstreamAdmin: AdminCall;
    let ourAdmin: AdminCall;
    before(async () => {
      merchantCallbacks = await startListener('OK');
      chain = await startChain(kind, {
        notificationUrl: merchantCallbacks.url,
        upstream: { adminToken: `up-${kind}` },
        ours: { adminToken: `ours-${kind}` },
      });
      upstreamAdmin = adminClient(chain.upstream.baseUrl, `up-${kind}`);
      ourAdmin = adminClient(chain.ours.baseUrl, `ours-${kind}`);
    });
    after(async () => {
      await chain?.close();
      await merchantCallbacks?.close();
    });

    const ourDisputes = async (paymentId: string) => {
      const res = await ourAdmin('GET', `/admin/v1/disputes?merchant_id=${chain.ours.merchant.id}&limit=100`);
      assert.ok(Array.isArray(res.body), res.text);
      return res.body.filter((d: { payment_id: string }) => d.payment_id === paymentId);
    };
    it('the upstream raises a chargeback: our dispute, payment CHARGEBACK, our merchant called back with F2', async () => {
      const id = (await sale(chain.ours, { order_amount: '30.00' })).body.trans_id as string;
      const [up] = await upstreamPayments(chain, id);
      const raised = await upstreamAdmin('POST', `/admin/v1/payments/${up!.id}/disputes`, { event: 'chargeback', amount: '20.00', reason_code: '13.1', bank_date: '2030-02-27' });
      assert.equal(raised.status, 201, raised.text);

      const [dispute] = await waitUntil('our dispute', async () => {
        const list = await ourDisputes(id);
        return list.length > 0 ? list : undefined;
      }, DELIVERY_MS);
      assert.deepEqual(
        { source: dispute.source, stage: dispute.stage, status: dispute.status, amount: dispute.amount, reason_code: dispute.reason_code, category: dispute.category, bank_date: dispute.bank_date },
        { source: 'akurateco', stage: 'first_chargeback', status: 'evidence_required', amount: '20.00', reason_code: '13.1', category: 'consumer_dispute', bank_date: '2030-02-27' },
      );
      assert.equal((await ourPayment(chain.ours, id)).status, 'chargeback');
      const cb = await waitUntil('our CHARGEBACK callback', async () => merchantCallbacks.received.find((r) => r.fields.trans_id === id && r.fields.action === 'CHARGEBACK'), DELIVERY_MS);
      assert.equal(cb.fields.amount, '20.00');
      assert.equal(cb.fields.reason_code, '13.1');
      assert.equal(cb.fields.bank_date, '2030-02-27');
      assert.equal(cb.fields.hash, f2(EMAIL, chain.ours.merchant.password, id, CARD));
      const details = await followUp(chain.ours, 'GET_TRANS_DETAILS', id);
      assert.equal(details.body.status, 'CHARGEBACK', details.text);

      // The upstream's callback delivered once; the same callback sent again changes nothing.
      const sent = await waitUntil('the upstream callback delivered', async () => {
        const rows = await chain.upstream.store.db.query<{ status: string; fields: Record<string, string> }>(`SELECT status, fields FROM callbacks WHERE payment_id = $1 AND fields->>'action' = 'CHARGEBACK'`, [up!.id]);
        return rows.length > 0 && rows.every((r) => r.status === 'delivered') ? rows[0] : undefined;
      }, DELIVERY_MS);
      const again = await chain.ours.postForm(`/connectors/akurateco/${chain.midId}/notify`, sent.fields);
      assert.equal(again.status, 200, again.text);
      assert.equal((await ourDisputes(id)).length, 1);
      const history = (await ourAdmin('GET', `/admin/v1/disputes/${dispute.id}`)).body.history;
      assert.equal(history.length, 1, 'a duplicate notice changes nothing');
      assert.equal(merchantCallbacks.received.filter((r) => r.fields.trans_id === id && r.fields.action === 'CHARGEBACK').length, 1);
    });

    it("the upstream's sandbox raises the chargeback (its operator's sandbox action): our dispute follows", async () => {
      const id = (await sale(chain.ours, { order_amount: '12.00' })).body.trans_id as string;
      const [up] = await upstreamPayments(chain, id);
      const raised = await upstreamAdmin('POST', `/admin/v1/sandbox/payments/${up!.id}/chargeback`, { reason_code: '10.4', notice_days: 0 });
      assert.equal(raised.status, 201, raised.text);
      assert.equal(raised.body.status, 'evidence_required');
      const [dispute] = await waitUntil('our dispute', async () => {
        const list = await ourDisputes(id);
        return list.length > 0 ? list : undefined;
      }, DELIVERY_MS);
      assert.deepEqual({ source: dispute.source, status: dispute.status, amount: dispute.amount, category: dispute.category }, { source: 'akurateco', status: 'evidence_required', amount: '12.00', category: 'fraud' });
      assert.equal((await ourPayment(chain.ours, id)).status, 'chargeback');
    });

    it('a forged CHARGEBACK callback is refused (401) and changes nothing', async () => {
      const id = (await sale(chain.ours, { order_amount: '9.00' })).body.trans_id as string;
      const [up] = await upstreamPayments(chain, id);
      const forged = await chain.ours.postForm(`/connectors/akurateco/${chain.midId}/notify`, {
        action: 'CHARGEBACK', result: 'SUCCESS', status: 'CHARGEBACK', order_id: id, trans_id: up!.id, amount: '9.00',
        chargeback_date: '2030-03-01 10:00:00', bank_date: '2030-02-28', reason_code: '10.4', hash: 'b'.repeat(32),
      });
      assert.equal(forged.status, 401, forged.text);
      assert.equal((await ourPayment(chain.ours, id)).status, 'settled');
      assert.deepEqual(await ourDisputes(id), []);
    });

    it('a CHARGEBACK for an unknown payment is acknowledged and listed as unmatched, never refused; its signature checked where it can be', async () => {
      const unmatched = async (query = '') => (await ourAdmin('GET', `/admin/v1/disputes/unmatched${query}`)).body as { payment_ref: string; mid_id: string; mid_name: string; mode: string; payload: Record<string, string> }[];
      const fields = (orderId: string) => ({
        action: 'CHARGEBACK', result: 'SUCCESS', status: 'CHARGEBACK', order_id: orderId, trans_id: crypto.randomUUID(), amount: '7.00',
        chargeback_date: '2030-03-01 10:00:00', bank_date: '2030-02-28', reason_code: '10.4',
      });
      // Formula 2 signs with the payer's e-mail and card, which no unknown payment gives: kept, marked unverifiable.
      const unknown = crypto.randomUUID();
      const f2Signed = await chain.ours.postForm(`/connectors/akurateco/${chain.midId}/notify`, { ...fields(unknown), hash: 'c'.repeat(32) });
      assert.equal(f2Signed.status, 200, f2Signed.text);
      assert.equal(f2Signed.text, 'OK');
      // The S2S APM callback signature needs only the MID's password and the fields: verified.
      const other = crypto.randomUUID();
      const apm = fields(other);
      const apmSigned = await chain.ours.postForm(`/connectors/akurateco/${chain.midId}/notify`, { ...apm, hash: apmCallbackHash(apm, chain.upstream.merchant.password) });
      assert.equal(apmSigned.status, 200, apmSigned.text);
      const listed = await unmatched();
      const first = listed.find((n) => n.payment_ref === unknown);
      const second = listed.find((n) => n.payment_ref === other);
      assert.deepEqual([first?.payload.signature, first?.payload.why, first?.payload.amount], ['unverifiable', 'no payment of this MID', '7.00']);
      assert.deepEqual([second?.payload.signature, second?.payload.why], ['verified', 'no payment of this MID']);
      // Each names the MID whose endpoint it reached, and that MID's mode (ours is a live merchant's).
      assert.deepEqual([first, second].map((n) => [n?.mid_id, n?.mid_name, n?.mode]), [[chain.midId, 'MID SMS/DMS', 'live'], [chain.midId, 'MID SMS/DMS', 'live']]);
      assert.ok((await unmatched(`?mid_id=${chain.midId}&mode=live`)).some((n) => n.payment_ref === unknown));
      assert.ok(!(await unmatched('?mode=test')).some((n) => n.payment_ref === unknown));
      // Sent again: acknowledged, listed once.
      assert.equal((await chain.ours.postForm(`/connectors/akurateco/${chain.midId}/notify`, { ...apm, hash: apmCallbackHash(apm, chain.upstream.merchant.password) })).status, 200);
      assert.equal((await unmatched()).filter((n) => n.payment_ref === other).length, 1);
    });
  });
}
