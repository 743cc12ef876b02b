/**
 * Defending a dispute (issue 29) over the admin API: evidence files whose type is told by their magic bytes (PDF,
 * PNG, JPEG; a GIF named .pdf is refused), size limits, a text; the files come back as uploaded; the defence is
 * submitted (no dispute port on the sandbox connector: recorded as sent by hand) and the dispute moves to
 * evidence_submitted; the due-soon list, the deadline alert (once per deadline) and the /metrics gauges; accept.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { storeKinds } from '../support/stores.ts';
import { startTestGateway, type TestGateway } from '../support/gateway.ts';
import { ManualClock } from '../../src/domain/clock.ts';
import { createLogger } from '../../src/logger.ts';
import { sale } from '../s2s-card/support.ts';
import { adminClient, fieldErrors, type AdminCall } from '../admin/support.ts';

const PDF = Buffer.from('%PDF-1.4\n1 0 obj <<>> endobj\ntrailer <<>>\n%%EOF\n', 'latin1');
const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52]);
const JPEG = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 16, 0x4a, 0x46, 0x49, 0x46, 0]);
const GIF = Buffer.from('GIF89a\x01\x00\x01\x00', 'latin1');

for (const { kind, skip } of await storeKinds()) {
  describe(`disputes: evidence, submission, deadlines (${kind})`, { skip }, () => {
    let gw: TestGateway;
    let admin: AdminCall;
    const clock = new ManualClock('2030-04-01T09:00:00Z');
    const logLines: string[] = [];
    before(async () => {
      const sink = new Writable({ write(chunk, _enc, done) { logLines.push(String(chunk)); done(); } });
      gw = await startTestGateway(kind, { clock, adminToken: `defence-${kind}`, logger: createLogger('info', sink) });
      admin = adminClient(gw.baseUrl, `defence-${kind}`);
    });
    after(() => gw?.close());

    const chargeback = async (amount: string, dueAt: string) => {
      const id = (await sale(gw, { order_amount: amount })).body.trans_id as string;
      const opened = await admin('POST', `/admin/v1/payments/${id}/disputes`, { event: 'chargeback', reason_code: '13.1', due_at: dueAt });
      assert.equal(opened.status, 201, opened.text);
      return opened.body.id as string;
    };
    const upload = (id: string, body: unknown) => admin('POST', `/admin/v1/disputes/${id}/evidence`, body);

    it('takes PDF, PNG, JPEG by their content and a text; refuses other types, oversize, bad base64; gives the files back', async () => {
      const id = await chargeback('30.00', '2030-04-20T00:00:00Z');
      const pdf = await upload(id, { file_name: 'proof.pdf', content_base64: PDF.toString('base64') });
      assert.equal(pdf.status, 201, pdf.text);
      assert.deepEqual({ kind: pdf.body.kind, type: pdf.body.content_type, size: pdf.body.size, submitted: pdf.body.submitted_at }, { kind: 'file', type: 'application/pdf', size: PDF.length, submitted: null });
      assert.equal((await upload(id, { file_name: 'a.bin', content_base64: PNG.toString('base64') })).body.content_type, 'image/png', 'the content decides, not the name');
      assert.equal((await upload(id, { content_base64: JPEG.toString('base64') })).body.content_type, 'image/jpeg');
      assert.equal((await upload(id, { text: 'Delivered on 2030-03-20, signed for by the cardholder.' })).body.kind, 'text');

      const gif = await upload(id, { file_name: 'fake.pdf', content_base64: GIF.toString('base64') });
      assert.equal(gif.status, 400, gif.text);
      assert.deepEqual(fieldErrors(gif.body), ['content_base64: The file should be one of application/pdf, image/png, image/jpeg (told by its content).']);
      const big = Buffer.concat([PDF, Buffer.alloc(2 * 1024 * 1024)]);
      const oversize = await upload(id, { content_base64: big.toString('base64') });
      assert.equal(oversize.status, 400, oversize.text.slice(0, 300));
      assert.equal(oversize.body.error_code, '100000');
      assert.equal((await upload(id, { content_base64: 'not base64!' })).status, 400);
      assert.equal((await upload(id, { content_base64: PDF.toString('base64'), text: 'both' })).status, 400);
      assert.equal((await upload(crypto.randomUUID(), { text: 'x' })).status, 404);

      const listed = await admin('GET', `/admin/v1/disputes/${id}/evidence`);
      assert.deepEqual(listed.body.map((e: { content_type: string }) => e.content_type), ['application/pdf', 'image/png', 'image/jpeg', 'text/plain; charset=utf-8']);
      const file = await fetch(`${gw.baseUrl}/admin/v1/disputes/${id}/evidence/${pdf.body.id}`, { headers: { authorization: `Bearer defence-${kind}` } });
      assert.equal(file.status, 200);
      assert.equal(file.headers.get('content-type'), 'application/pdf');
      assert.deepEqual(Buffer.from(await file.arrayBuffer()), PDF);

      const submitted = await admin('POST', `/admin/v1/disputes/${id}/submit`, { note: 'sent through the acquirer portal' });
      assert.equal(submitted.status, 200, submitted.text);
      assert.equal(submitted.body.status, 'evidence_submitted');
      assert.equal(submitted.body.submission.method, 'manual', 'no dispute port on this connector: recorded as sent by hand');
      assert.equal(submitted.body.submission.evidence.length, 4);
      const history = (await admin('GET', `/admin/v1/disputes/${id}`)).body.history;
      assert.equal(history.at(-1).event, 'information_supplied');
      assert.equal(history.at(-1).details.submission, 'manual');
      assert.ok((await admin('GET', `/admin/v1/disputes/${id}/evidence`)).body.every((e: { submitted_at: string | null }) => e.submitted_at !== null));
      const again = await admin('POST', `/admin/v1/disputes/${id}/submit`, {});
      assert.equal(again.status, 409, 'submitted already: the table allows no second information_supplied');
    });

    it('lists disputes due soon, alerts each deadline once, counts them on /metrics; accept closes one', async () => {
      const soon = await chargeback('12.00', '2030-04-03T09:00:00Z');
      const later = await chargeback('13.00', '2030-04-30T09:00:00Z');
      const due = await admin('GET', '/admin/v1/disputes/due');
      assert.equal(due.status, 200, due.text);
      const ids = due.body.map((d: { id: string }) => d.id);
      assert.ok(ids.includes(soon) && !ids.includes(later), due.text);
      assert.equal(due.body.find((d: { id: string }) => d.id === soon).deadline, 'due_soon');
      assert.ok((await admin('GET', '/admin/v1/disputes/due?within_days=30')).body.some((d: { id: string }) => d.id === later));

      await gw.gateway.disputes.runOnce();
      await gw.gateway.disputes.runOnce();
      const alerts = logLines.filter((l) => l.includes('"alert":"dispute_deadline"') && l.includes(soon));
      assert.equal(alerts.length, 1, 'alerted once per deadline');
      assert.ok(alerts[0]!.includes('"mode":"test"'), `a sandbox merchant's dispute is a test key's: ${alerts[0]}`);
      assert.ok(!logLines.some((l) => l.includes('"alert":"dispute_deadline"') && l.includes(later)));
      const metrics = await (await fetch(`${gw.baseUrl}/metrics`)).text();
      assert.match(metrics, new RegExp(`portcullis_disputes_due_soon\\{merchant="${gw.merchant.id}",mode="test"\\} [1-9]`));
      // This month's ratios: the suite's payments were captured in April 2030 (its clock), three charged back (13.1: none fraud).
      const [count] = await gw.store.db.query<{ n: string }>(`SELECT count(*)::text AS n FROM payments WHERE merchant_id = $1 AND captured_amount > 0`, [gw.merchant.id]);
      const expected = Math.floor((3 * 10_000) / Number(count!.n));
      assert.match(metrics, new RegExp(`portcullis_dispute_ratio_basis_points\\{merchant="${gw.merchant.id}",mid="[^"]+",currency="USD",mode="test"\\} ${expected}\n`), metrics.split('\n').filter((l) => l.includes('ratio')).join('\n'));
      assert.match(metrics, new RegExp(`portcullis_fraud_dispute_ratio_basis_points\\{merchant="${gw.merchant.id}",mid="[^"]+",currency="USD",mode="test"\\} 0\n`));
      assert.match(metrics, new RegExp(`portcullis_dispute_over_threshold\\{merchant="${gw.merchant.id}",mid="[^"]+",currency="USD",mode="test"\\} 0\n`), 'fewer than 100 chargebacks');

      // The operator's threshold: the ratios and the gauge compare against it.
      assert.deepEqual((await admin('GET', '/admin/v1/disputes/threshold')).body, { ratio_percent: '0.90', min_count: 100, default: true });
      assert.equal((await admin('PUT', '/admin/v1/disputes/threshold', { ratio_percent: '0', min_count: -1 })).status, 400);
      const set = await admin('PUT', '/admin/v1/disputes/threshold', { ratio_percent: '1.50', min_count: 0 });
      assert.deepEqual(set.body, { ratio_percent: '1.50', min_count: 0, default: false }, set.text);
      assert.match(await (await fetch(`${gw.baseUrl}/metrics`)).text(), new RegExp(`portcullis_dispute_over_threshold\\{merchant="${gw.merchant.id}",mid="[^"]+",currency="USD",mode="test"\\} 1\n`));
      const ratios = await admin('GET', '/admin/v1/disputes/ratios?month=2030-04');
      assert.equal(ratios.body.threshold_percent, '1.50');
      assert.ok(ratios.body.rows.some((r: { merchant_id: string; over_threshold: boolean }) => r.merchant_id === gw.merchant.id && r.over_threshold), ratios.text);

      // A merchant's own threshold: its ratios and gauge compare against it, others keep the platform's.
      const own = `/admin/v1/merchants/${gw.merchant.id}/dispute-threshold`;
      assert.deepEqual((await admin('GET', own)).body, { merchant_id: gw.merchant.id, ratio_percent: '1.50', min_count: 0, source: 'platform' });
      assert.equal((await admin('GET', `/admin/v1/merchants/${crypto.randomUUID()}/dispute-threshold`)).status, 404);
      assert.equal((await admin('PUT', own, { ratio_percent: '100.01', min_count: 1 })).status, 400);
      const mine = await admin('PUT', own, { ratio_percent: '100', min_count: 1000 });
      assert.deepEqual(mine.body, { merchant_id: gw.merchant.id, ratio_percent: '100.00', min_count: 1000, source: 'merchant' }, mine.text);
      assert.match(await (await fetch(`${gw.baseUrl}/metrics`)).text(), new RegExp(`portcullis_dispute_over_threshold\\{merchant="${gw.merchant.id}",mid="[^"]+",currency="USD",mode="test"\\} 0\n`));
      const row = (await admin('GET', '/admin/v1/disputes/ratios?month=2030-04')).body.rows.find((r: { merchant_id: string }) => r.merchant_id === gw.merchant.id);
      assert.deepEqual([row.threshold_percent, row.threshold_min_count, row.over_threshold], ['100.00', 1000, false]);
      const cleared = await admin('DELETE', own);
      assert.equal(cleared.body.source, 'platform', cleared.text);
      assert.match(await (await fetch(`${gw.baseUrl}/metrics`)).text(), new RegExp(`portcullis_dispute_over_threshold\\{merchant="${gw.merchant.id}",mid="[^"]+",currency="USD",mode="test"\\} 1\n`));
      const audited = await admin('GET', `/admin/v1/audit-log?object_id=${gw.merchant.id}&action=dispute.threshold`);
      assert.ok(JSON.stringify(audited.body).includes('dispute.threshold'), audited.text);

      clock.advance(3 * 86_400_000);
      const overdue = await admin('GET', '/admin/v1/disputes/due');
      assert.equal(overdue.body.find((d: { id: string }) => d.id === soon).deadline, 'overdue');
      assert.match(await (await fetch(`${gw.baseUrl}/metrics`)).text(), new RegExp(`portcullis_disputes_overdue\\{merchant="${gw.merchant.id}",mode="test"\\} [1-9]`));

      const accepted = await admin('POST', `/admin/v1/disputes/${soon}/events`, { event: 'accept', note: 'not worth defending' });
      assert.equal(accepted.status, 200, accepted.text);
      assert.equal(accepted.body.status, 'accepted');
      assert.ok(!(await admin('GET', '/admin/v1/disputes/due')).body.some((d: { id: string }) => d.id === soon), 'a closed dispute has no deadline');
      assert.equal((await upload(soon, { text: 'too late' })).status, 409, 'no evidence for a closed dispute');
    });
  });
}
