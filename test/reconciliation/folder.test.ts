/**
 * The watched folder (issue 28): a settlement report dropped in RECON_WATCH_DIR/<mid id>/ is imported like an
 * upload and moved to done/; the same file again changes nothing; a file with problems imports nothing and lands
 * in failed/ with its problems, one per line; two watchers of one folder import a file once.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, mkdir, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { storeKinds } from '../support/stores.ts';
import { startTestGateway, type TestGateway } from '../support/gateway.ts';
import { ManualClock } from '../../src/domain/clock.ts';
import { sale } from '../s2s-card/support.ts';
import { ReconciliationFolder } from '../../src/workers/reconciliation-folder.ts';
import { adyenReport } from './support.ts';

for (const { kind, skip } of await storeKinds()) {
  describe(`reconciliation: the watched folder (${kind})`, { skip }, () => {
    let gw: TestGateway;
    let dir: string;
    const midId = crypto.randomUUID();
    const clock = new ManualClock('2030-06-01T09:00:00Z');
    before(async () => {
      gw = await startTestGateway(kind, { clock, mids: [{ id: midId, paymentMode: 'SMS/DMS' }] });
      dir = await mkdtemp(path.join(tmpdir(), 'recon-folder-'));
      await mkdir(path.join(dir, midId));
    });
    after(async () => {
      await gw?.close();
      if (dir) await rm(dir, { recursive: true, force: true });
    });

    it('imports a dropped report once, refuses a bad one with its problems, and two watchers share a file', async () => {
      const res = await sale(gw, { order_amount: '10.00', order_currency: 'USD' });
      const [p] = await gw.store.db.query<{ psp: string }>("SELECT details->>'connectorRef' AS psp FROM payments WHERE id = $1", [res.body.trans_id]);
      const report = adyenReport([{ psp: p!.psp, ref: res.body.trans_id, type: 'Settled', gross: '10.00', fee: '0.20', at: '2030-06-02 10:00:00' }], { batch: '1', payout: true });
      await writeFile(path.join(dir, midId, 'settlement_detail_report_batch_1.csv'), report);
      const a = new ReconciliationFolder(gw.gateway.ctx, dir);
      const b = new ReconciliationFolder(gw.gateway.ctx, dir);
      const results = (await Promise.all([a.runOnce(), b.runOnce()])).flat();
      assert.deepEqual(results, [{ file: `${midId}/settlement_detail_report_batch_1.csv`, outcome: 'imported' }], 'one watcher took it');
      assert.deepEqual(await readdir(path.join(dir, midId, 'done')), ['settlement_detail_report_batch_1.csv']);
      const [row] = await gw.store.db.query<{ outcome: string }>('SELECT outcome FROM recon_rows WHERE payment_id = $1', [res.body.trans_id]);
      assert.equal(row!.outcome, 'matched');

      await writeFile(path.join(dir, midId, 'again.csv'), report);
      await writeFile(path.join(dir, midId, 'broken.csv'), report.replace(',10.00,', ',1O.00,'));
      const second = await a.runOnce();
      assert.deepEqual(second.map((r) => r.outcome).sort(), ['failed', 'unchanged']);
      const problems = await readFile(path.join(dir, midId, 'failed', 'broken.csv.problems.txt'), 'utf8');
      assert.match(problems, /^line 2: Gross Credit \(GC\) "1O.00" is not an amount in USD\.$/m);
      const [imports] = await gw.store.db.query<{ n: number }>('SELECT count(*)::int AS n FROM recon_imports WHERE mid_id = $1', [midId]);
      assert.equal(imports!.n, 1, 'one import: the same file changed nothing, the broken one imported nothing');
    });
  });
}
