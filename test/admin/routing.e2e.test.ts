/**
 * Smart routing and cascading end to end (issue 15), on both stores: rules saved through the admin API (validated,
 * audited, permissions), the dry run, and SALEs on sandbox MIDs forced to decline with a retryable or a hard code:
 * the cascade happens or not, the merchant gets one answer and one callback, the attempts show in the payment view.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { storeKinds } from '../support/stores.ts';
import { startTestGateway, type TestGateway } from '../support/gateway.ts';
import { adminCall, d3Messages, merchantWith as merchantOf, tokenFor, type MidSpec } from './config-support.ts';
import { sale } from '../s2s-card/support.ts';
import { recurringSale } from '../recurring/support.ts';
import { newId } from '../../src/domain/ids.ts';


for (const { kind, skip } of await storeKinds()) {
  describe(`routing and cascading (${kind})`, { skip }, () => {
    let t: TestGateway;
    const ADMIN = `admin-${kind}-token`;
    const tokens: Record<string, string> = {};
    const call = (method: string, path: string, token: string | undefined, body?: unknown) => adminCall(t.baseUrl, method, path, token, body);

    before(async () => {
      t = await startTestGateway(kind, { adminToken: ADMIN });
      for (const role of ['operator', 'viewer'] as const) tokens[role] = await tokenFor(t, role);
    });
    after(async () => t?.close());

    const merchantWith = (specs: MidSpec[]) => merchantOf(t, specs);

    /** The payment as the operator sees it, and how many callbacks were written for it. */
    async function view(transId: string) {
      const res = await call('GET', `/admin/v1/payments/${transId}`, tokens.viewer);
      assert.equal(res.status, 200, res.text);
      const [row] = await t.store.db.query<{ n: string }>('SELECT count(*)::text AS n FROM callbacks WHERE payment_id = $1', [res.body.payment.id]);
      return { ...res.body, callbackCount: Number(row!.n) };
    }

    it('cascades a retryable decline to the next MID: one answer, one callback, both attempts shown', async () => {
      const [a, b] = [newId(), newId()];
      const m = await merchantWith([{ id: a, priority: 30, decline: 'do_not_honor' }, { id: b, priority: 20 }]);
      const res = await sale(t, {}, m);
      assert.equal(res.body.status, 'SETTLED', res.text);
      const v = await view(res.body.trans_id);
      assert.equal(v.callbackCount, 1, 'exactly one callback');
      assert.deepEqual(v.transactions.map((x: { status: string }) => x.status).sort(), ['fail', 'success']);
      assert.equal(v.routing.mid_id, b);
      assert.deepEqual(v.routing.candidates, [a, b]);
      assert.deepEqual(v.routing.attempts.map((x: any) => [x.mid_id, x.why, x.outcome, x.code, x.retry]), [
        [a, 'routed', 'declined', 'do_not_honor', 'other_mid'],
        [b, 'cascade', 'approved', null, null],
      ]);
      assert.equal(new Set(v.routing.attempts.map((x: any) => x.trans_id)).size, 2, 'each attempt its own transaction');
    });

    it('never cascades after a hard decline', async () => {
      const [a, b] = [newId(), newId()];
      const m = await merchantWith([{ id: a, priority: 30, decline: 'lost_or_stolen' }, { id: b, priority: 20 }]);
      const res = await sale(t, {}, m);
      assert.equal(res.body.status, 'DECLINED', res.text);
      const v = await view(res.body.trans_id);
      assert.equal(v.callbackCount, 1);
      assert.deepEqual(v.transactions.map((x: { status: string }) => x.status), ['fail']);
      assert.deepEqual(v.routing.attempts.map((x: any) => [x.mid_id, x.code, x.stop]), [[a, 'lost_or_stolen', 'hard_decline']]);
    });

    it('stops at the merchant\'s extra attempts, never tries one MID twice, and 0 turns cascading off', async () => {
      const [a, b, c] = [newId(), newId(), newId()];
      const m = await merchantWith([{ id: a, priority: 30, decline: 'do_not_honor' }, { id: b, priority: 20, decline: 'acquirer_error' }, { id: c, priority: 10 }]);
      const declined = await sale(t, {}, m);
      assert.equal(declined.body.status, 'DECLINED', declined.text);
      const v = await view(declined.body.trans_id);
      assert.deepEqual(v.routing.attempts.map((x: any) => [x.mid_id, x.stop]), [[a, null], [b, 'max_attempts']], 'default: one extra attempt');
      assert.equal(v.callbackCount, 1);

      const put = await call('PUT', `/admin/v1/merchants/${m.id}/routing`, tokens.operator, { rules: [{ name: 'every MID in turn', when: {}, then: { kind: 'fallback', mid_ids: [a, b, c] } }], max_extra_attempts: 4 });
      assert.equal(put.status, 200, put.text);
      const third = await view((await sale(t, {}, m)).body.trans_id);
      assert.deepEqual(third.routing.attempts.map((x: any) => x.mid_id), [a, b, c]);
      assert.equal(third.payment.status, 'settled');
      assert.equal(third.callbackCount, 1);

      await call('PUT', `/admin/v1/merchants/${m.id}/routing`, tokens.operator, { rules: [], max_extra_attempts: 0 });
      const off = await view((await sale(t, {}, m)).body.trans_id);
      assert.deepEqual(off.routing.attempts.map((x: any) => [x.mid_id, x.stop]), [[a, 'max_attempts']]);
    });

    it('saves rules (validated, audited, permissioned) and routes by the first match; the dry run agrees', async () => {
      const [a, b] = [newId(), newId()];
      const m = await merchantWith([{ id: a, priority: 30 }, { id: b, priority: 20 }]);
      const path = `/admin/v1/merchants/${m.id}/routing`;
      assert.deepEqual((await call('GET', path, tokens.viewer)).body, { rules: [], max_extra_attempts: 1 });
      const rules = { rules: [
        { name: 'EUR to b', when: { currencies: ['EUR'] }, then: { kind: 'mid', mid_id: b } },
        { name: 'big', when: { amount: { min: '100' } }, then: { kind: 'split', shares: [{ weight: 50, mid_ids: [a] }, { weight: 50, mid_ids: [b] }] } },
      ], max_extra_attempts: 1 };
      assert.equal((await call('PUT', path, tokens.viewer, rules)).status, 403, 'mids.write needed');
      const bad = await call('PUT', path, tokens.operator, { rules: [{ name: 'x', when: {}, then: { kind: 'mid', mid_id: newId() } }, ...rules.rules], max_extra_attempts: 1 });
      assert.equal(bad.status, 400);
      assert.equal(d3Messages(bad).length, 3, bad.text);
      assert.equal((await call('PUT', path, tokens.operator, { rules: [{ name: 'x', when: { currencies: ['eur'] }, then: {} }], max_extra_attempts: 9 })).status, 400);
      assert.equal((await call('PUT', `/admin/v1/merchants/${newId()}/routing`, tokens.operator, rules)).status, 404);
      const saved = await call('PUT', path, tokens.operator, rules);
      assert.equal(saved.status, 200, saved.text);
      assert.deepEqual((await call('GET', path, tokens.viewer)).body, rules);
      const audit = await t.store.db.query<{ action: string }>('SELECT action FROM audit_log WHERE object_id = $1', [m.id]);
      assert.deepEqual(audit.map((x) => x.action), ['merchant.routing']);

      const eur = await sale(t, { order_currency: 'EUR' }, m);
      const v = await view(eur.body.trans_id);
      assert.equal(v.routing.mid_id, b);
      assert.equal(v.routing.rule, 'routing_rule');
      assert.deepEqual(v.routing.matched_rule, { index: 0, name: 'EUR to b' });
      assert.equal((await view((await sale(t, { order_currency: 'USD' }, m)).body.trans_id)).routing.mid_id, a, 'no match: priority');

      const dry = await call('POST', `${path}/dry-run`, tokens.viewer, { operation: 'sale', amount: '10.00', currency: 'EUR', bin: '411111' });
      assert.equal(dry.status, 200, dry.text);
      assert.equal(dry.body.mid_id, b);
      assert.deepEqual(dry.body.matched_rule, { index: 0, name: 'EUR to b' });
      const split = await call('POST', `${path}/dry-run`, tokens.viewer, { operation: 'sale', amount: '150.00', currency: 'USD' });
      assert.equal(split.body.matched_rule.index, 1);
      assert.equal(split.body.mid_id, [a, b][split.body.share]);
      assert.equal((await call('POST', `${path}/dry-run`, tokens.viewer, { operation: 'sale', amount: '1.001', currency: 'USD' })).status, 400);
    });

    it('keeps a merchant-initiated charge on its chain\'s MID whatever the rules say', async () => {
      const [a, b] = [newId(), newId()];
      const m = await merchantWith([{ id: a, priority: 30 }, { id: b, priority: 20 }]);
      const first = await sale(t, { recurring_init: 'Y' }, m);
      assert.equal(first.body.status, 'SETTLED', first.text);
      assert.ok(first.body.recurring_token, first.text);
      const put = await call('PUT', `/admin/v1/merchants/${m.id}/routing`, tokens.operator, { rules: [{ name: 'all to b', when: {}, then: { kind: 'mid', mid_id: b } }], max_extra_attempts: 1 });
      assert.equal(put.status, 200, put.text);
      const charge = await recurringSale(t, { initId: first.body.trans_id, token: first.body.recurring_token }, {}, { m });
      assert.equal(charge.body.status, 'SETTLED', charge.text);
      const v = await view(charge.body.trans_id);
      assert.equal(v.routing.mid_id, a);
      assert.equal(v.routing.rule, 'highest_priority');
      assert.equal((await view((await sale(t, {}, m)).body.trans_id)).routing.mid_id, b, 'a payer\'s own payment follows the rule');
    });
  });
}
