/**
 * The merchant defends a dispute in the portal (issue 29 item 5): a finance user lists the merchant's disputes with
 * their deadline, reads one, uploads a PDF and the defence text (a GIF, an oversize file and a closed dispute are
 * refused with D3 bodies), submits the defence (recorded as sent by hand: no dispute port on the sandbox connector)
 * and accepts another; a viewer may read but not defend (403); another merchant's owner finds neither (404); each
 * act is in the merchant's own audit log with the merchant user.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { storeKinds } from '../support/stores.ts';
import { startTestGateway, type TestGateway } from '../support/gateway.ts';
import { ManualClock } from '../../src/domain/clock.ts';
import { sale } from '../s2s-card/support.ts';
import { adminClient, fieldErrors, type AdminCall } from '../admin/support.ts';
import { invitedUser, portalClient, portalSignIn } from './support.ts';

const PDF = Buffer.from('%PDF-1.4\n1 0 obj <<>> endobj\ntrailer <<>>\n%%EOF\n', 'latin1');
const GIF = Buffer.from('GIF89a\x01\x00\x01\x00', 'latin1');

for (const { kind, skip } of await storeKinds()) {
  describe(`portal: the merchant defends its disputes (${kind})`, { skip }, () => {
    let t: TestGateway;
    let admin: AdminCall;
    const clock = new ManualClock('2030-04-01T09:00:00Z');
    const token = `portal-disputes-${kind}`;
    before(async () => {
      t = await startTestGateway(kind, { clock, adminToken: token });
      admin = adminClient(t.baseUrl, token);
    });
    after(async () => t?.close());

    const chargeback = async (amount: string, dueAt: string, merchant = t.merchant) => {
      const id = (await sale(t, { order_amount: amount }, merchant)).body.trans_id as string;
      const opened = await admin('POST', `/admin/v1/payments/${id}/disputes`, { event: 'chargeback', reason_code: '13.1', due_at: dueAt });
      assert.equal(opened.status, 201, opened.text);
      return opened.body.id as string;
    };

    it('lists, reads, takes evidence within the limits, submits and accepts; scoped and audited', async () => {
      const defended = await chargeback('30.00', '2030-04-03T09:00:00Z');
      const accepted = await chargeback('12.00', '2030-04-30T09:00:00Z');
      const other = await t.addMerchant();
      const foreign = await chargeback('9.00', '2030-04-20T09:00:00Z', other);
      const financeUser = await invitedUser(t, token, { role: 'finance' });
      const finance = portalClient(t.baseUrl, await portalSignIn(t.baseUrl, financeUser.email));
      const viewer = portalClient(t.baseUrl, await portalSignIn(t.baseUrl, (await invitedUser(t, token, { role: 'viewer' })).email));
      const stranger = portalClient(t.baseUrl, await portalSignIn(t.baseUrl, (await invitedUser(t, token, { role: 'owner', merchantId: other.id })).email));

      const list = await viewer('GET', '/portal/v1/disputes');
      assert.equal(list.status, 200, list.text);
      assert.deepEqual(list.body.disputes.map((d: { id: string; deadline: string; status: string; reason_code: string }) => [d.id, d.deadline, d.status, d.reason_code]),
        [[accepted, 'later', 'evidence_required', '13.1'], [defended, 'due_soon', 'evidence_required', '13.1']], 'newest first, the other merchant\'s not among them');
      assert.equal((await viewer('GET', '/portal/v1/disputes?status=nonsense')).status, 400);
      assert.equal((await viewer('GET', `/portal/v1/disputes?merchant_id=${other.id}`)).status, 404);
      assert.deepEqual((await stranger('GET', '/portal/v1/disputes')).body.disputes.map((d: { id: string }) => d.id), [foreign]);

      const upload = (id: string, body: unknown) => finance('POST', `/portal/v1/disputes/${id}/evidence`, body);
      const pdf = await upload(defended, { file_name: 'delivery.pdf', content_base64: PDF.toString('base64') });
      assert.equal(pdf.status, 201, pdf.text);
      assert.deepEqual({ type: pdf.body.content_type, by: pdf.body.created_by }, { type: 'application/pdf', by: `merchant:${financeUser.email}` });
      assert.equal((await upload(defended, { text: 'Delivered on 2030-03-20, signed for by the cardholder.' })).status, 201);
      const gif = await upload(defended, { file_name: 'fake.pdf', content_base64: GIF.toString('base64') });
      assert.equal(gif.status, 400, gif.text);
      assert.deepEqual(fieldErrors(gif.body), ['content_base64: The file should be one of application/pdf, image/png, image/jpeg (told by its content).']);
      const oversize = await upload(defended, { content_base64: Buffer.concat([PDF, Buffer.alloc(2 * 1024 * 1024)]).toString('base64') });
      assert.equal(oversize.status, 400, oversize.text.slice(0, 300));
      assert.equal(oversize.body.error_code, '100000');
      assert.equal((await upload(defended, { text: '' })).status, 400);
      assert.equal((await viewer('POST', `/portal/v1/disputes/${defended}/evidence`, { text: 'no' })).status, 403, 'a viewer reads, does not defend');
      assert.equal((await stranger('POST', `/portal/v1/disputes/${defended}/evidence`, { text: 'no' })).status, 404);
      assert.equal((await stranger('GET', `/portal/v1/disputes/${defended}`)).status, 404);
      assert.equal((await finance('GET', `/portal/v1/disputes/${foreign}`)).status, 404);
      assert.equal((await finance('POST', `/portal/v1/disputes/${foreign}/submit`, {})).status, 404);
      assert.equal((await finance('POST', `/portal/v1/disputes/${foreign}/accept`, {})).status, 404);

      const file = await fetch(`${t.baseUrl}/portal/v1/disputes/${defended}/evidence/${pdf.body.id}`, { headers: { cookie: (await portalSignIn(t.baseUrl, financeUser.email)).cookie } });
      assert.equal(file.status, 200);
      assert.deepEqual(Buffer.from(await file.arrayBuffer()), PDF);

      const submitted = await finance('POST', `/portal/v1/disputes/${defended}/submit`, { note: 'please forward' });
      assert.equal(submitted.status, 200, submitted.text);
      assert.deepEqual({ status: submitted.body.status, method: submitted.body.submission.method, n: submitted.body.submission.evidence.length }, { status: 'evidence_submitted', method: 'manual', n: 2 });
      assert.equal((await finance('POST', `/portal/v1/disputes/${defended}/submit`, {})).status, 409);
      const read = await viewer('GET', `/portal/v1/disputes/${defended}`);
      assert.equal(read.status, 200, read.text);
      assert.deepEqual(read.body.history.map((h: { event: string }) => h.event), ['chargeback', 'information_supplied']);
      assert.equal(read.body.history[1].actor, `merchant:${financeUser.email}`);
      assert.ok(read.body.evidence.length === 2 && read.body.evidence.every((e: { submitted_at: string | null }) => e.submitted_at !== null), read.text);
      assert.deepEqual({ due_at: read.body.due_at, deadline: read.body.deadline }, { due_at: '2030-04-03T09:00:00.000Z', deadline: 'due_soon' }, 'open until decided: the deadline still shows');

      assert.equal((await viewer('POST', `/portal/v1/disputes/${accepted}/accept`, {})).status, 403);
      const acc = await finance('POST', `/portal/v1/disputes/${accepted}/accept`, { note: 'refunded by bank transfer' });
      assert.equal(acc.status, 200, acc.text);
      assert.equal(acc.body.status, 'accepted');
      assert.equal((await finance('POST', `/portal/v1/disputes/${accepted}/accept`, {})).status, 409);
      assert.equal((await upload(accepted, { text: 'too late' })).status, 409, 'a closed dispute takes no evidence');

      const audit = await finance('GET', '/portal/v1/audit?limit=200');
      assert.equal(audit.status, 200, audit.text);
      const mine = audit.body.entries.filter((e: { object_id: string }) => e.object_id === defended || e.object_id === accepted)
        .map((e: { action: string; user_name: string }) => `${e.action} ${e.user_name}`).sort();
      assert.deepEqual(mine, [
        `dispute.accept merchant:${financeUser.email}`, `dispute.evidence_added merchant:${financeUser.email}`, `dispute.evidence_added merchant:${financeUser.email}`,
        `dispute.information_supplied merchant:${financeUser.email}`,
      ]);
      const strangerAudit = await stranger('GET', '/portal/v1/audit?limit=200');
      assert.ok(!strangerAudit.text.includes(defended), 'not in the other merchant\'s log');
    });
  });
}
