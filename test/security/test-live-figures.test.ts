/**
 * Issue 25, item 26, the places that still mixed test with live: over HTTP on both stores, a sandbox merchant
 * (a test key) and a live merchant (a live key) each pay, have a chargeback whose deadline is near, a refund left
 * for an operator, and a settlement report with an unknown row on their MID. With `mode=test` a live payment never
 * appears or counts, with `mode=live` a test one never does: the disputes due soon and the ratios, GET
 * /admin/v1/stats and /stats/figures (the home's figures and charts), the needs-attention list, the
 * reconciliation batches, rows, summary and exceptions CSV (the MID's merchant decides); /metrics labels the dispute
 * and reconciliation series mode="test" or mode="live".
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { storeKinds } from '../support/stores.ts';
import { startTestGateway, type TestGateway, type TestMerchant } from '../support/gateway.ts';
import { adminClient, type AdminCall } from '../admin/support.ts';
import { saleFields, signedSale } from '../s2s-card/support.ts';
import { flagForOperator, getPayment } from '../../src/store/payments-repo.ts';
import { adyenReport } from '../reconciliation/support.ts';
import { dayAwayFromMidnight } from '../support/utc-day.ts';

type Mode = 'test' | 'live';
const MODES: Mode[] = ['test', 'live'];

for (const { kind, skip } of await storeKinds()) {
  describe(`test and live kept apart in figures, due lists and reconciliation (${kind})`, { skip }, () => {
    const TOKEN = `figures-${kind}`;
    let t: TestGateway;
    let admin: AdminCall;
    const mids = { test: crypto.randomUUID(), live: crypto.randomUUID() };
    const merchants = {} as Record<Mode, TestMerchant>;
    /** Per mode: the payment paid, its dispute, the payment whose refund waits for an operator, the report's batch. */
    const made = { test: {}, live: {} } as Record<Mode, { paid: string; dispute: string; held: string; batch: string }>;
    /** The UTC month of the disputes, the one the ratios are asked for. */
    let month = '';

    before(async () => {
      t = await startTestGateway(kind, { adminToken: TOKEN, mids: [{ id: mids.test, paymentMode: 'SMS/DMS' }] });
      admin = adminClient(t.baseUrl, TOKEN);
      merchants.test = t.merchant;
      // A live merchant whose MID is an acquirer of the platform family: this gateway's own /post, as its sandbox merchant.
      merchants.live = await t.addMerchant({
        sandbox: false,
        mids: [{ id: mids.live, paymentMode: 'SMS/DMS', connector: 'akurateco', settings: { endpoint: `${t.baseUrl}/post` }, credentials: { client_key: t.merchant.key, password: t.merchant.password } }],
      });
      const connectorOf: Record<Mode, string> = { test: 'sandbox-card', live: 'akurateco' };
      month = (await dayAwayFromMidnight(60_000)).slice(0, 7); // the disputes and their month's ratios on one side of a midnight
      const dueAt = new Date(Date.now() + 86_400_000).toISOString();
      for (const mode of MODES) {
        const m = merchants[mode];
        const pay = async () => {
          const res = await t.postForm('/post', signedSale(m, saleFields({ order_amount: '10.00', order_currency: 'USD', order_id: `${mode.toUpperCase()}-${crypto.randomUUID()}` })));
          assert.equal(res.body.status, 'SETTLED', res.text);
          return res.body.trans_id as string;
        };
        const paid = await pay();
        const disputed = await admin('POST', `/admin/v1/payments/${paid}/disputes`, { event: 'chargeback', amount: '4.00', reason_code: '10.4', due_at: dueAt });
        assert.equal(disputed.status, 201, disputed.text);

        // A refund whose answer was lost, handed to an operator as the re-check worker does.
        const held = await pay();
        const connector = t.gateway.ctx.connectors.get(connectorOf[mode])!;
        const original = connector.refund;
        connector.refund = async () => { throw new Error('connection reset'); };
        try {
          const res = await admin('POST', `/admin/v1/payments/${held}/refund`, { amount: '2.00' });
          assert.equal(res.status, 200, res.text);
        } finally {
          connector.refund = original;
        }
        const p = (await getPayment(t.store.db, held))!;
        assert.equal(p.pendingOperation, 'refund');
        assert.ok(await flagForOperator(t.store.db, p, new Date()));

        // The MID's settlement report: an unknown row (an open exception), a batch of its own.
        assert.equal((await admin('PUT', `/admin/v1/reconciliation/mids/${mids[mode]}/profile`, { settlement_days: 3, window_days: 1, reconcile_from: '2030-05-01T00:00:00Z' })).status, 200);
        const csv = adyenReport([{ psp: `99${mode === 'test' ? '1' : '2'}5893240009999`, ref: `unknown-${mode}`, type: 'Settled', gross: mode === 'test' ? '5.00' : '7.00', fee: '0.00', at: '2030-06-04 10:03:00' }], { batch: `B-${mode}`, payout: false });
        const uploaded = await fetch(`${t.baseUrl}/admin/v1/reconciliation/imports?mid_id=${mids[mode]}`, { method: 'POST', headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'text/csv' }, body: csv });
        const batch = await uploaded.json() as { batch: { id: string } };
        assert.equal(uploaded.status, 200, JSON.stringify(batch));
        made[mode] = { paid, dispute: disputed.body.id, held, batch: batch.batch.id };
      }
    });
    after(() => t?.close());

    const get = async (path: string) => {
      const res = await admin('GET', path);
      assert.equal(res.status, 200, `${path}: ${res.text}`);
      return res.body;
    };
    const other = (mode: Mode): Mode => (mode === 'test' ? 'live' : 'test');

    it('the disputes due soon and the month\'s ratios: mode=test lists the test key\'s alone, mode=live the live key\'s', async () => {
      const all = (await get('/admin/v1/disputes/due') as { id: string }[]).map((d) => d.id);
      assert.ok(all.includes(made.test.dispute) && all.includes(made.live.dispute), 'both without a mode');
      for (const mode of MODES) {
        const due = (await get(`/admin/v1/disputes/due?mode=${mode}`) as { id: string; merchant_id: string }[]);
        assert.ok(due.some((d) => d.id === made[mode].dispute), `${mode}: its own dispute`);
        assert.ok(!due.some((d) => d.id === made[other(mode)].dispute), `${mode}: never the other key's`);
        assert.ok(due.every((d) => d.merchant_id === merchants[mode].id));
        const ratios = (await get(`/admin/v1/disputes/ratios?month=${month}&mode=${mode}`)).rows as { merchant_id: string; dispute_count: number }[];
        assert.deepEqual([...new Set(ratios.map((r) => r.merchant_id))], [merchants[mode].id], `${mode}: ratios of its merchant alone`);
        assert.equal(ratios.reduce((n, r) => n + r.dispute_count, 0), 1);
      }
      assert.equal((await admin('GET', '/admin/v1/disputes/due?mode=sandbox')).status, 400);
    });

    it('GET /admin/v1/stats and /stats/figures count each key\'s payments under its own mode only; the two modes sum to the whole', async () => {
      const since = new Date(Date.now() - 3_600_000).toISOString();
      const whole = (await get(`/admin/v1/stats?since=${encodeURIComponent(since)}`)).merchants as { merchant_id: string; payments: number }[];
      const wholeFigures = await get('/admin/v1/stats/figures?by=merchant');
      let payments = 0;
      for (const mode of MODES) {
        const stats = (await get(`/admin/v1/stats?since=${encodeURIComponent(since)}&mode=${mode}`)).merchants as { merchant_id: string; payments: number }[];
        // The live MID is this gateway's own /post as the sandbox merchant: each live payment is a test one there too.
        const expected = mode === 'live' ? 2 : 4;
        assert.deepEqual(stats.map((m) => [m.merchant_id, m.payments]), [[merchants[mode].id, expected]], `${mode}: ${JSON.stringify(stats)}`);
        const figures = await get(`/admin/v1/stats/figures?by=merchant&mode=${mode}`);
        assert.deepEqual(figures.groups.map((g: { key: string }) => g.key), [merchants[mode].id], `${mode}: the charts' groups`);
        assert.equal(figures.totals.current.payments, expected);
        assert.deepEqual(figures.totals.current.volume, [{ currency: 'USD', amount: `${expected * 10}.00`, payments: expected }]);
        assert.equal(figures.daily.reduce((n: number, d: { current: { payments: number } }) => n + d.current.payments, 0), expected, `${mode}: the daily chart`);
        const byMid = await get(`/admin/v1/stats/figures?by=mid&mode=${mode}`);
        assert.deepEqual(byMid.groups.map((g: { key: string }) => g.key), [mids[mode]]);
        payments += figures.totals.current.payments;
      }
      assert.equal(payments, wholeFigures.totals.current.payments, 'test and live sum to the whole');
      assert.equal(whole.reduce((n, m) => n + m.payments, 0), payments);
      assert.equal((await admin('GET', '/admin/v1/stats?mode=sandbox')).status, 400);
      assert.equal((await admin('GET', '/admin/v1/stats/figures?mode=sandbox')).status, 400);
    });

    it('the needs-attention list: mode=test the test key\'s held refund alone, mode=live the live key\'s', async () => {
      const ids = async (query: string) => ((await get(`/admin/v1/payments/needs-operator${query}`)).payments as { id: string }[]).map((p) => p.id);
      assert.deepEqual(new Set(await ids('')), new Set([made.test.held, made.live.held]));
      for (const mode of MODES) assert.deepEqual(await ids(`?mode=${mode}`), [made[mode].held], mode);
      assert.equal((await admin('GET', '/admin/v1/payments/needs-operator?mode=sandbox')).status, 400);
    });

    it('reconciliation: batches, rows, open exceptions, the summary and the CSV export follow the MID\'s mode', async () => {
      for (const mode of MODES) {
        const batches = (await get(`/admin/v1/reconciliation/batches?mode=${mode}`) as { id: string; mid_id: string }[]);
        assert.deepEqual(batches.map((b) => b.id), [made[mode].batch], `${mode}: batches`);
        const rows = (await get(`/admin/v1/reconciliation/rows?mode=${mode}&limit=500`)).rows as { mid_id: string }[];
        assert.ok(rows.length > 0 && rows.every((r) => r.mid_id === mids[mode]), `${mode}: rows ${JSON.stringify(rows)}`);
        const open = (await get(`/admin/v1/reconciliation/rows?mode=${mode}&open=true`)).rows as { mid_id: string; outcome: string; amount: string }[];
        assert.ok(open.some((r) => r.outcome === 'unexpected' && r.amount === (mode === 'test' ? '5.00' : '7.00')));
        assert.ok(open.every((r) => r.mid_id === mids[mode]));
        const summary = (await get(`/admin/v1/reconciliation/summary?mode=${mode}`) as { mid_id: string }[]);
        assert.ok(summary.length > 0 && summary.every((s) => s.mid_id === mids[mode]), `${mode}: summary`);
        const csv = await fetch(`${t.baseUrl}/admin/v1/reconciliation/exceptions.csv?mode=${mode}`, { headers: { authorization: `Bearer ${TOKEN}` } });
        assert.equal(csv.status, 200);
        const lines = (await csv.text()).trim().split('\r\n').slice(1);
        assert.ok(lines.length > 0 && lines.every((l) => l.includes(mids[mode]) && !l.includes(mids[other(mode)])), `${mode}: export`);
      }
      const all = (await get('/admin/v1/reconciliation/rows?limit=500')).rows as unknown[];
      const split = (await get('/admin/v1/reconciliation/rows?mode=test&limit=500')).rows.length + (await get('/admin/v1/reconciliation/rows?mode=live&limit=500')).rows.length;
      assert.equal(split, all.length, 'every row is in one of the two');
      assert.equal((await admin('GET', '/admin/v1/reconciliation/rows?mode=sandbox')).status, 400);
    });

    it('/metrics: the dispute and reconciliation series carry mode="test" or mode="live" by their merchant', async () => {
      const metrics = await (await fetch(`${t.baseUrl}/metrics`)).text();
      const lines = (name: string) => metrics.split('\n').filter((l) => l.startsWith(`${name}{`));
      for (const mode of MODES) {
        const m = merchants[mode].id;
        assert.match(metrics, new RegExp(`portcullis_disputes_due_soon\\{merchant="${m}",mode="${mode}"\\} 1\n`), lines('portcullis_disputes_due_soon').join('\n'));
        assert.match(metrics, new RegExp(`portcullis_dispute_ratio_basis_points\\{merchant="${m}",mid="${mids[mode]}",currency="USD",mode="${mode}"\\} \\d+\n`), lines('portcullis_dispute_ratio_basis_points').join('\n'));
        assert.match(metrics, new RegExp(`portcullis_reconciliation_unreconciled_rows\\{mid="${mids[mode]}",currency="USD",mode="${mode}"\\} [1-9]`), lines('portcullis_reconciliation_unreconciled_rows').join('\n'));
      }
      const unexpected = lines('portcullis_reconciliation_unreconciled_amount_minor');
      assert.ok(unexpected.some((l) => l.includes(`mid="${mids.live}"`) && l.includes('mode="live"')), unexpected.join('\n'));
      for (const name of ['portcullis_disputes_due_soon', 'portcullis_disputes_overdue', 'portcullis_dispute_ratio_basis_points', 'portcullis_fraud_dispute_ratio_basis_points', 'portcullis_dispute_over_threshold', 'portcullis_reconciliation_unreconciled_rows', 'portcullis_reconciliation_unreconciled_amount_minor']) {
        assert.ok(lines(name).every((l) => /,mode="(test|live)"\} /.test(l)), `${name}: every series has its mode`);
      }
    });
  });
}
