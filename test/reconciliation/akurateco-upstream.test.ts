/**
 * Reconciliation with real parts (issue 28): the platform-family upstream's report. Payments made through our
 * `akurateco` MID against a second Portcullis (the upstream, as the connector tests chain them), then the report
 * built from what the upstream answers to GET_TRANS_DETAILS for each of them, imported through the admin API:
 * matched by the upstream's trans_id, the refund too, a difference the upstream booked (its sale's amount changed
 * in its own store) named, the same answers twice changing nothing, and a payment the upstream does not know
 * making the whole report a problem with its line; the upstream's fee (its answers carry `fee`: the upstream
 * merchant's status fields) on the sale's row and posted as the acquirer's fee, and a card payout (CREDIT2CARD,
 * the upstream's `credit`) matched against our payout.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { storeKinds } from '../support/stores.ts';
import { f5, followUp, PAYOUT_CARD, sale } from '../s2s-card/support.ts';
import { insertFeeSchedule } from '../../src/store/ledger-repo.ts';
import { parseFeeRows } from '../../src/domain/ledger/fees.ts';
import { forgetBooks } from '../../src/services/money/postings.ts';
import { adminClient, fieldErrors, type AdminCall } from '../admin/support.ts';
import { ourPayment, startChain, upstreamPayments, waitUntil, type Chain } from '../connectors/support.ts';

for (const { kind, skip } of await storeKinds()) {
  describe(`reconciliation of an akurateco MID from the upstream's transaction lookups (${kind})`, { skip }, () => {
    let chain: Chain;
    let admin: AdminCall;
    before(async () => {
      chain = await startChain(kind, { ours: { adminToken: `recon-ak-${kind}` }, upstream: { settings: { statusFields: ['fee'] } } });
      admin = adminClient(chain.ours.baseUrl, `recon-ak-${kind}`);
      // The upstream's own schedule: 2.9 % + 0.30 a sale, a flat 0.25 a payout (its answers carry the fee so far).
      const rows = parseFeeRows([{ operation: 'sale', currency: 'USD', percent: '2.9', fixed: '0.30' }, { operation: 'payout', currency: 'USD', fixed: '0.25' }]);
      assert.ok('rows' in rows);
      await insertFeeSchedule(chain.upstream.store.db, { id: `fs-upstream-${kind}`, merchantId: null, effectiveFrom: new Date(Date.now() - 86_400_000), rows: rows.rows, createdBy: null }, new Date());
      forgetBooks(chain.upstream.gateway.ctx);
    });
    after(async () => {
      await chain?.close();
    });

    it('matches each payment and refund by the upstream trans_id, names the amount the upstream booked differently, imports the same answers once', async () => {
      const from = new Date(Date.now() - 60_000);
      const ids: string[] = [];
      for (const amount of ['12.34', '20.00', '7.50']) {
        const res = await sale(chain.ours, { order_amount: amount, order_currency: 'USD' });
        assert.equal(res.body.status, 'SETTLED', res.text);
        ids.push(res.body.trans_id as string);
      }
      const refund = await followUp(chain.ours, 'CREDITVOID', ids[0]!, { amount: '2.00' });
      assert.equal(refund.body.result, 'ACCEPTED', refund.text);
      // Settled by the upstream's callback at our notification endpoint, as the connector tests show.
      await waitUntil('the refund applied', async () => ((await ourPayment(chain.ours, ids[0]!)).pendingOperation === null ? true : undefined));
      // The upstream booked the second sale at 19.00: its record differs from ours.
      const [up1] = await upstreamPayments(chain, ids[1]!);
      await chain.upstream.store.db.query("UPDATE transactions SET amount = 1900 WHERE payment_id = $1 AND type = 'sale'", [up1!.id]);
      const profile = await admin('PUT', `/admin/v1/reconciliation/mids/${chain.midId}/profile`, { settlement_days: 0, reconcile_from: from.toISOString() });
      assert.equal(profile.status, 200, profile.text);

      const range = { mid_id: chain.midId, from: from.toISOString(), to: new Date(Date.now() + 60_000).toISOString() };
      const res = await admin('POST', '/admin/v1/reconciliation/upstream-reports', range);
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.batch.layout, 'upstream_transactions');
      assert.equal(res.body.unchanged, false);
      assert.deepEqual(res.body.batch.counts, { matched: 3, mismatched: 1 }, res.text);
      const rows = (await admin('GET', `/admin/v1/reconciliation/rows?batch_id=${res.body.batch.id}`)).body.rows as any[];
      const of = (id: string, kind: string) => rows.find((r) => r.payment_id === id && r.kind === kind);
      const [up0] = await upstreamPayments(chain, ids[0]!);
      assert.equal(of(ids[0]!, 'settled').outcome, 'matched');
      assert.equal(of(ids[0]!, 'settled').matched_by, 'acquirer_ref');
      assert.equal(of(ids[0]!, 'settled').acquirer_ref, up0!.id, 'the upstream\'s trans_id');
      assert.equal(of(ids[0]!, 'refunded').outcome, 'matched');
      assert.equal(of(ids[0]!, 'refunded').amount, '2.00');
      assert.deepEqual(of(ids[1]!, 'settled').differences, [{ field: 'amount', ours: '20.00', theirs: '19.00' }]);
      assert.equal(of(ids[2]!, 'settled').outcome, 'matched');
      const ledger = (await admin('GET', `/admin/v1/payments/${ids[0]}/ledger`)).body.entries.map((e: { event: string; account: string; amount: string }) => `${e.event} ${e.account} ${e.amount}`);
      assert.ok(ledger.includes(`acquirer_settlement acquirer:${chain.midId}:receivable -12.34`), ledger.join('\n'));
      assert.equal((await admin('GET', '/admin/v1/money/ledger-check')).body.balanced, true);

      const again = await admin('POST', '/admin/v1/reconciliation/upstream-reports', range);
      assert.equal(again.status, 200, again.text);
      assert.equal(again.body.unchanged, true, 'the same answers are the same report');
      assert.equal(again.body.batch.id, res.body.batch.id);
    });

    it('takes the fee from the upstream\'s answers (posted as the acquirer\'s fee) and matches a card payout (the upstream\'s credit) with ours', async () => {
      const from = new Date();
      const paid = await sale(chain.ours, { order_amount: '10.00', order_currency: 'USD' });
      assert.equal(paid.body.status, 'SETTLED', paid.text);
      const saleId = paid.body.trans_id as string;
      const merchant = chain.ours.merchant;
      const out = await chain.ours.postForm('/post', { client_key: merchant.key, action: 'CREDIT2CARD', order_id: `PO-${Date.now()}`, order_amount: '7.00', order_currency: 'USD', order_description: 'refund of goods', card_number: PAYOUT_CARD, hash: f5(merchant.password, PAYOUT_CARD) });
      assert.ok(['SETTLED', 'PENDING', 'PREPARE'].includes(out.body.status as string), out.text);
      const payoutId = out.body.trans_id as string;
      await waitUntil('the payout settled', async () => ((await ourPayment(chain.ours, payoutId)).status === 'settled' ? true : undefined), 20_000);
      const range = { mid_id: chain.midId, from: from.toISOString(), to: new Date(Date.now() + 60_000).toISOString() };
      const res = await admin('POST', '/admin/v1/reconciliation/upstream-reports', range);
      assert.equal(res.status, 200, res.text);
      const rows = (await admin('GET', `/admin/v1/reconciliation/rows?batch_id=${res.body.batch.id}&open=false`)).body.rows as any[];
      const saleRow = rows.find((r) => r.payment_id === saleId);
      assert.deepEqual([saleRow?.outcome, saleRow?.type, saleRow?.fee, saleRow?.net], ['matched', 'sale', '0.59', '9.41'], JSON.stringify(rows));
      const payoutRow = rows.find((r) => r.payment_id === payoutId);
      assert.deepEqual([payoutRow?.outcome, payoutRow?.type, payoutRow?.kind, payoutRow?.amount, payoutRow?.fee, payoutRow?.matched_by], ['matched', 'credit', 'refunded', '7.00', '0.25', 'acquirer_ref'], JSON.stringify(rows));
      const saleLedger = (await admin('GET', `/admin/v1/payments/${saleId}/ledger`)).body.entries.map((e: { event: string; account: string; amount: string }) => `${e.event} ${e.account} ${e.amount}`);
      assert.ok(saleLedger.includes('acquirer_fee platform:acquirer_fees 0.59'), saleLedger.join('\n'));
      const payoutLedger = (await admin('GET', `/admin/v1/payments/${payoutId}/ledger`)).body.entries.map((e: { event: string; account: string; amount: string }) => `${e.event} ${e.account} ${e.amount}`);
      assert.ok(payoutLedger.includes(`acquirer_settlement_return acquirer:${chain.midId}:receivable 7.00`), payoutLedger.join('\n'));
      assert.equal((await admin('GET', '/admin/v1/money/ledger-check')).body.balanced, true);
    });

    it('a payment the upstream cannot find makes the report a problem naming it: nothing imported; a range backwards or an unknown MID is refused', async () => {
      const res = await sale(chain.ours, { order_amount: '3.00', order_currency: 'USD' });
      const id = res.body.trans_id as string;
      await chain.ours.store.db.query(`UPDATE payments SET details = jsonb_set(details, '{connectorRef}', '"0193ffff-0000-7000-8000-000000000000"') WHERE id = $1`, [id]);
      const before = (await admin('GET', `/admin/v1/reconciliation/batches?mid_id=${chain.midId}`)).body.length as number;
      const range = { mid_id: chain.midId, from: new Date(Date.now() - 120_000).toISOString(), to: new Date(Date.now() + 60_000).toISOString() };
      const bad = await admin('POST', '/admin/v1/reconciliation/upstream-reports', range);
      assert.equal(bad.status, 400, bad.text);
      assert.ok(fieldErrors(bad.body).some((m) => m.includes(`payment ${id} could not be read`)), bad.text);
      assert.equal((await admin('GET', `/admin/v1/reconciliation/batches?mid_id=${chain.midId}`)).body.length, before, 'nothing imported');
      const wrong = await admin('POST', '/admin/v1/reconciliation/upstream-reports', { ...range, to: range.from });
      assert.equal(wrong.status, 400, wrong.text);
      assert.deepEqual(fieldErrors(wrong.body), ['to: should be after from.'], wrong.text);
      const unknown = await admin('POST', '/admin/v1/reconciliation/upstream-reports', { ...range, mid_id: crypto.randomUUID() });
      assert.equal(unknown.status, 404, unknown.text);
    });
  });
}
