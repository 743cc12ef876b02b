/**
 * Issue 25, item 13: a payment's Checkout session id is its hosted-fields Token (a bearer credential while the
 * session lives). The admin API shows it whole to roles that may act on payments, masked to the others.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestGateway, type TestGateway } from '../support/gateway.ts';
import { operatorWithRole } from '../admin/support.ts';
import { newOrder, openToken, status } from '../hosted-fields/support.ts';

describe('admin: hosted-fields tokens masked for read-only roles', () => {
  let t: TestGateway;
  before(async () => (t = await startTestGateway('pglite', { adminToken: 'mask-test-admin-token' })));
  after(() => t?.close());

  it('operators and admins see session_id; support and viewers see it masked', async () => {
    const order = newOrder('mask');
    const token = await openToken(t, order);
    const payment = (await status(t, { order_id: order.number })).body;
    const seen: Record<string, string> = {};
    for (const role of ['admin', 'operator', 'support', 'viewer'] as const) {
      const { call } = await operatorWithRole(t, role);
      const res = await call('GET', `/admin/v1/payments/${payment.payment_id}`);
      assert.equal(res.status, 200, res.text);
      seen[role] = res.body.payment.session_id;
      if (role === 'support' || role === 'viewer') assert.ok(!res.text.includes(token), `${role}: the token appears nowhere in the answer`);
    }
    assert.equal(seen.admin, token);
    assert.equal(seen.operator, token);
    const masked = `${token.slice(0, 4)}****${token.slice(-4)}`;
    assert.deepEqual([seen.support, seen.viewer], [masked, masked]);
  });
});
