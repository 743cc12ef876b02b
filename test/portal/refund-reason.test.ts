/**
 * The portal's refund reason (issue 30): a real field, as the operators' refund reason is. A finance user refunds
 * part of a payment with a reason: the payment's timeline carries it as the transaction's reason_given, the
 * merchant's audit log as details.reason_given, the refunds CSV in its reason column; the user's name stays their
 * own (the reason is never folded into it). The operators' view of the same refund shows it too. A refund without a
 * reason records none.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { storeKinds } from '../support/stores.ts';
import { startTestGateway, type TestGateway } from '../support/gateway.ts';
import { adminClient } from '../admin/support.ts';
import { sale } from '../s2s-card/support.ts';
import { invitedUser, portalClient, portalSignIn } from './support.ts';

const ADMIN = 'portal-refund-reason-admin';

for (const { kind, skip } of await storeKinds()) {
  describe(`portal: the refund reason (${kind})`, { skip }, () => {
    let t: TestGateway;
    before(async () => { t = await startTestGateway(kind, { adminToken: ADMIN }); });
    after(async () => t?.close());

    it('is recorded on the refund, shown in the timeline and the audit log, exported, and kept out of the user\'s name', async () => {
      const paid = await sale(t, { order_id: 'REASON-1', order_amount: '20.00' });
      assert.equal(paid.body.status, 'SETTLED', paid.text);
      const id: string = paid.body.trans_id;
      const user = await invitedUser(t, ADMIN, { role: 'finance' });
      const me = portalClient(t.baseUrl, await portalSignIn(t.baseUrl, user.email));

      const refunded = await me('POST', `/portal/v1/payments/${id}/refund`, { amount: '5.00', reason: '  Damaged item  ' });
      assert.equal(refunded.status, 200, refunded.text);
      assert.equal(refunded.body.result, 'approved', refunded.text);
      const plain = await me('POST', `/portal/v1/payments/${id}/refund`, { amount: '1.00' });
      assert.equal(plain.status, 200, plain.text);

      // The timeline: each refund with its own reason (or none), started by the user under their own name.
      const detail = await me('GET', `/portal/v1/payments/${id}`);
      assert.equal(detail.status, 200, detail.text);
      const refunds = detail.body.transactions.filter((x: { type: string }) => x.type === 'refund')
        .map((x: { amount: string; reason_given: string | null; initiated_by: { kind: string; name: string } | null }) => [x.amount, x.reason_given, x.initiated_by?.kind, x.initiated_by?.name])
        .sort();
      assert.deepEqual(refunds, [
        ['1.00', null, 'merchant_user', `merchant:${user.email}`],
        ['5.00', 'Damaged item', 'merchant_user', `merchant:${user.email}`],
      ], detail.text);

      // The merchant's audit log: the user as they are, the reason beside them.
      const audit = await me('GET', '/portal/v1/audit?limit=200');
      const entries = audit.body.entries.filter((e: { action: string; object_id: string }) => e.action === 'payment.refund' && e.object_id === id);
      assert.ok(entries.length >= 2, audit.text);
      assert.ok(entries.every((e: { user_name: string }) => e.user_name === `merchant:${user.email}`), audit.text);
      assert.deepEqual([...new Set(entries.map((e: { details: { reason_given?: string } }) => e.details.reason_given ?? null))].sort(), ['Damaged item', null].sort(), audit.text);

      // The refunds CSV: the reason in its column, the user in theirs.
      const csv = await me('GET', '/portal/v1/refunds/export');
      assert.equal(csv.status, 200, csv.text);
      const lines = csv.text.trim().split('\r\n').slice(1);
      assert.ok(lines.some((l) => l.endsWith(`"5.00","USD","Damaged item","merchant:${user.email}"`)), csv.text);
      assert.ok(lines.some((l) => l.endsWith(`"1.00","USD","","merchant:${user.email}"`)), csv.text);

      // The operators see the same reason on the transaction, as for their own refunds.
      const admin = await adminClient(t.baseUrl, ADMIN)('GET', `/admin/v1/payments/${id}`);
      assert.equal(admin.status, 200, admin.text);
      const seen = admin.body.transactions.find((x: { type: string; amount: string }) => x.type === 'refund' && x.amount === '5.00');
      assert.deepEqual([seen?.reason_given, seen?.initiated_by?.kind, seen?.initiated_by?.name], ['Damaged item', 'merchant_user', `merchant:${user.email}`], admin.text);

      // A reason longer than the field takes is refused, as the operators' is.
      const long = await me('POST', `/portal/v1/payments/${id}/refund`, { amount: '1.00', reason: 'x'.repeat(201) });
      assert.equal(long.status, 400, long.text);
    });
  });
}
