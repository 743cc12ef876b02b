/**
 * Saved views of the portal's payments (issue 30): a user saves a search under a name, finds it in the list, applies
 * it to the search and to the CSV export, deletes it. A view is the user's own (a teammate neither sees nor deletes
 * it), its filters are checked as the search checks them, its merchant must be one of the user's, and a name is
 * the user's once.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { storeKinds } from '../support/stores.ts';
import { startTestGateway, type TestGateway } from '../support/gateway.ts';
import { sale } from '../s2s-card/support.ts';
import { invitedUser, portalClient, portalSignIn } from './support.ts';

const ADMIN = 'portal-saved-views-admin';

for (const { kind, skip } of await storeKinds()) {
  describe(`portal: saved views (${kind})`, { skip }, () => {
    let t: TestGateway;
    before(async () => { t = await startTestGateway(kind, { adminToken: ADMIN }); });
    after(async () => t?.close());

    it('saves, lists, applies and deletes a user\'s own views; refuses bad filters, a foreign merchant and a name twice', async () => {
      await sale(t, { order_id: 'VIEW-1', order_amount: '12.00' });
      await sale(t, { order_id: 'VIEW-2', order_amount: '99.00' });
      const other = await t.addMerchant();
      const me = portalClient(t.baseUrl, await portalSignIn(t.baseUrl, (await invitedUser(t, ADMIN, { role: 'finance' })).email));
      const mate = portalClient(t.baseUrl, await portalSignIn(t.baseUrl, (await invitedUser(t, ADMIN, { role: 'viewer' })).email));

      const query = { currency: 'USD', amount_from: '50.00' };
      const saved = await me('POST', '/portal/v1/saved-views', { name: 'Big ones', query });
      assert.equal(saved.status, 201, saved.text);
      assert.deepEqual([saved.body.name, saved.body.query], ['Big ones', query]);
      assert.equal((await me('POST', '/portal/v1/saved-views', { name: 'BIG ONES', query: {} })).status, 400, 'a name once, any case');
      const bad = await me('POST', '/portal/v1/saved-views', { name: 'Bad', query: { amount_from: '5' } });
      assert.equal(bad.status, 400);
      assert.deepEqual(bad.body.errors.map((e: { error_message: string }) => e.error_message), ['query.currency: This value should not be blank.'], bad.text);
      assert.equal((await me('POST', '/portal/v1/saved-views', { name: 'Theirs', query: { merchant_id: other.id } })).status, 404);

      const list = await me('GET', '/portal/v1/saved-views');
      assert.deepEqual(list.body.views.map((v: { name: string }) => v.name), ['Big ones']);
      assert.deepEqual((await mate('GET', '/portal/v1/saved-views')).body.views, [], 'a teammate sees none of them');
      const view = list.body.views[0];
      const found = await me('GET', `/portal/v1/payments?${new URLSearchParams(view.query)}`);
      assert.deepEqual(found.body.payments.map((p: { order_id: string }) => p.order_id), ['VIEW-2']);
      const csv = await me('GET', `/portal/v1/payments/export?${new URLSearchParams(view.query)}`);
      assert.equal(csv.text.trim().split('\r\n').length, 2, csv.text);
      assert.ok(csv.text.includes('"VIEW-2"'));

      assert.equal((await mate('DELETE', `/portal/v1/saved-views/${view.id}`)).status, 404, 'a teammate cannot delete it');
      assert.equal((await me('DELETE', `/portal/v1/saved-views/${view.id}`)).status, 204);
      assert.equal((await me('DELETE', `/portal/v1/saved-views/${view.id}`)).status, 404);
      assert.deepEqual((await me('GET', '/portal/v1/saved-views')).body.views, []);
      const audit = await t.store.db.query<{ action: string }>("SELECT action FROM audit_log WHERE object_type = 'saved_view' ORDER BY at");
      assert.deepEqual(audit.map((a) => a.action), ['saved_view.create', 'saved_view.delete']);
    });
  });
}
