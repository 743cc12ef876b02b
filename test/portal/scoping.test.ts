/**
 * The portal API's scoping matrix (issue 30, Security): every route x every role of the merchant's users x a user
 * of another merchant. A role the permission table (domain/merchant-roles.ts) grants gets through; one it does not
 * gets 403; the other merchant's owner, who holds every permission, gets 404 for each of this merchant's objects
 * and sees none of them in a list; no session gets 401. Then what the routes answer: the payments export as CSV
 * with formulas neutralised, a refund recorded in the merchant's audit log with the user, the signing secret.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { storeKinds } from '../support/stores.ts';
import { startTestGateway, type TestGateway, type TestMerchant } from '../support/gateway.ts';
import { adminClient } from '../admin/support.ts';
import { sale } from '../s2s-card/support.ts';
import { MERCHANT_ROLES, merchantMayDo, type MerchantPermission } from '../../src/domain/merchant-roles.ts';
import { invitedUser, portalClient, portalSignIn, request, type Answer } from './support.ts';

const ADMIN = 'portal-scoping-admin-token';
const CALLBACKS = 'http://127.0.0.1:9/callbacks';

interface Ids { merchant: string; payment: string; payment2: string; callback: string; viewer: string; pending: string; dispute: string; dispute2: string }
interface Route { name: string; method: string; path: (i: Ids) => string; body?: (i: Ids) => unknown; permission: MerchantPermission; list?: boolean }

const ROUTES: readonly Route[] = [
  { name: 'search payments', method: 'GET', path: (i) => `/portal/v1/payments?merchant_id=${i.merchant}`, permission: 'payments.read', list: true },
  { name: 'home figures', method: 'GET', path: (i) => `/portal/v1/figures?merchant_id=${i.merchant}`, permission: 'payments.read' },
  { name: 'one payment', method: 'GET', path: (i) => `/portal/v1/payments/${i.payment}`, permission: 'payments.read' },
  { name: 'export payments', method: 'GET', path: (i) => `/portal/v1/payments/export?merchant_id=${i.merchant}`, permission: 'payments.export', list: true },
  { name: 'export refunds', method: 'GET', path: (i) => `/portal/v1/refunds/export?merchant_id=${i.merchant}`, permission: 'payments.export', list: true },
  { name: 'export disputes', method: 'GET', path: (i) => `/portal/v1/disputes/export?merchant_id=${i.merchant}`, permission: 'payments.export', list: true },
  { name: 'refund', method: 'POST', path: (i) => `/portal/v1/payments/${i.payment}/refund`, body: () => ({ amount: '0.01', reason: 'matrix' }), permission: 'payments.act' },
  { name: 'capture', method: 'POST', path: (i) => `/portal/v1/payments/${i.payment}/capture`, body: () => ({}), permission: 'payments.act' },
  { name: 'void', method: 'POST', path: (i) => `/portal/v1/payments/${i.payment2}/void`, body: () => ({}), permission: 'payments.act' },
  { name: 'disputes', method: 'GET', path: (i) => `/portal/v1/disputes?merchant_id=${i.merchant}`, permission: 'payments.read', list: true },
  { name: 'one dispute', method: 'GET', path: (i) => `/portal/v1/disputes/${i.dispute}`, permission: 'payments.read' },
  { name: 'dispute evidence', method: 'POST', path: (i) => `/portal/v1/disputes/${i.dispute}/evidence`, body: () => ({ text: 'matrix defence' }), permission: 'disputes.write' },
  { name: 'submit the defence', method: 'POST', path: (i) => `/portal/v1/disputes/${i.dispute}/submit`, body: () => ({}), permission: 'disputes.write' },
  { name: 'accept a dispute', method: 'POST', path: (i) => `/portal/v1/disputes/${i.dispute2}/accept`, body: () => ({}), permission: 'disputes.write' },
  { name: 'saved views', method: 'GET', path: () => '/portal/v1/saved-views', permission: 'payments.read', list: true },
  { name: 'balances and next payout', method: 'GET', path: () => '/portal/v1/money', permission: 'money.read', list: true },
  { name: 'export fees', method: 'GET', path: (i) => `/portal/v1/fees/export?merchant_id=${i.merchant}`, permission: 'money.read', list: true },
  { name: 'scheduled reports', method: 'GET', path: () => '/portal/v1/report-subscriptions', permission: 'payments.read', list: true },
  { name: 'subscribe a payments report', method: 'POST', path: () => '/portal/v1/report-subscriptions', body: (i) => ({ kind: 'payments', cadence: 'daily', delivery: 'download', merchant_id: i.merchant }), permission: 'payments.export' },
  { name: 'subscribe a fees report', method: 'POST', path: () => '/portal/v1/report-subscriptions', body: (i) => ({ kind: 'fees', cadence: 'monthly', delivery: 'download', merchant_id: i.merchant }), permission: 'money.read' },
  { name: 'reports made', method: 'GET', path: () => '/portal/v1/reports', permission: 'payments.read', list: true },
  { name: 'statements', method: 'GET', path: (i) => `/portal/v1/statements?merchant_id=${i.merchant}`, permission: 'money.read', list: true },
  { name: 'callbacks', method: 'GET', path: (i) => `/portal/v1/callbacks?merchant_id=${i.merchant}`, permission: 'callbacks.read', list: true },
  { name: 'export callbacks', method: 'GET', path: (i) => `/portal/v1/callbacks/export?merchant_id=${i.merchant}`, permission: 'callbacks.read', list: true },
  { name: 'one callback', method: 'GET', path: (i) => `/portal/v1/callbacks/${i.callback}`, permission: 'callbacks.read' },
  { name: 'send a test callback', method: 'POST', path: () => '/portal/v1/developers/test-callback', body: (i) => ({ merchant_id: i.merchant }), permission: 'callbacks.resend' },
  { name: 'resend a callback', method: 'POST', path: (i) => `/portal/v1/callbacks/${i.callback}/resend`, body: () => ({}), permission: 'callbacks.resend' },
  { name: 'developers', method: 'GET', path: (i) => `/portal/v1/developers?merchant_id=${i.merchant}`, permission: 'developers.read' },
  { name: 'reveal the signing secret', method: 'POST', path: () => '/portal/v1/developers/signing-secret/reveal', body: (i) => ({ merchant_id: i.merchant }), permission: 'developers.secrets' },
  { name: 'rotate the signing secret', method: 'POST', path: () => '/portal/v1/developers/signing-secret', body: (i) => ({ merchant_id: i.merchant }), permission: 'developers.secrets' },
  { name: 'rotate the hash password', method: 'POST', path: () => '/portal/v1/developers/password', body: (i) => ({ merchant_id: i.merchant, grace_hours: 24 }), permission: 'developers.secrets' },
  { name: 'change developer settings', method: 'PATCH', path: () => '/portal/v1/developers', body: (i) => ({ merchant_id: i.merchant, allowed_source_addresses: [] }), permission: 'developers.secrets' },
  { name: 'audit log', method: 'GET', path: () => '/portal/v1/audit', permission: 'audit.read', list: true },
  { name: 'team', method: 'GET', path: () => '/portal/v1/team', permission: 'team.read', list: true },
  { name: 'change a user', method: 'PATCH', path: (i) => `/portal/v1/team/${i.viewer}`, body: () => ({ role: 'viewer' }), permission: 'team.manage' },
  { name: 'new invitation link', method: 'POST', path: (i) => `/portal/v1/team/${i.pending}/invitation`, permission: 'team.manage' },
  { name: 'invite', method: 'POST', path: () => '/portal/v1/team', body: () => ({ email: `invitee-${Math.random().toString(36).slice(2)}@shop.example`, role: 'viewer' }), permission: 'team.manage', list: true },
];

for (const { kind, skip } of await storeKinds()) {
  describe(`portal: scoping matrix (${kind})`, { skip }, () => {
    let t: TestGateway;
    let b: TestMerchant;
    const ids = {} as Ids;
    const calls = {} as Record<string, ReturnType<typeof portalClient>>;
    let strangerCall: ReturnType<typeof portalClient>;

    before(async () => {
      t = await startTestGateway(kind, { adminToken: ADMIN, notificationUrl: CALLBACKS });
      b = await t.addMerchant({ notificationUrl: CALLBACKS });
      ids.merchant = t.merchant.id;
      const paid = await sale(t, { order_id: '=1+2' });
      assert.equal(paid.body.status, 'SETTLED', paid.text);
      ids.payment = paid.body.trans_id;
      ids.payment2 = (await sale(t)).body.trans_id;
      await sale(t, {}, b);
      const admin = adminClient(t.baseUrl, ADMIN);
      for (const key of ['dispute', 'dispute2'] as const) {
        const payment = (await sale(t)).body.trans_id;
        const opened = await admin('POST', `/admin/v1/payments/${payment}/disputes`, { event: 'chargeback', reason_code: '13.1', due_at: '2099-01-01T00:00:00Z' });
        assert.equal(opened.status, 201, opened.text);
        ids[key] = opened.body.id;
      }
      for (const role of MERCHANT_ROLES) {
        const user = await invitedUser(t, ADMIN, { role });
        if (role === 'viewer') ids.viewer = user.id;
        calls[role] = portalClient(t.baseUrl, await portalSignIn(t.baseUrl, user.email));
      }
      const pending = await adminClient(t.baseUrl, ADMIN)('POST', '/admin/v1/merchant-users', { email: `pending-${kind}@shop.example`, role: 'viewer', merchant_id: t.merchant.id });
      ids.pending = pending.body.id;
      const stranger = await invitedUser(t, ADMIN, { role: 'owner', merchantId: b.id });
      strangerCall = portalClient(t.baseUrl, await portalSignIn(t.baseUrl, stranger.email));
      const callbacks = await calls.owner!('GET', '/portal/v1/callbacks');
      ids.callback = callbacks.body.callbacks.find((c: { payment_id: string }) => c.payment_id === ids.payment).id;
      assert.ok(ids.callback);
    });
    after(async () => t?.close());

    for (const route of ROUTES) {
      it(`${route.method} ${route.name}: each role as the table says, another merchant's owner refused, no session 401`, async () => {
        const send = (call: ReturnType<typeof portalClient>) => call(route.method, route.path(ids), route.body?.(ids));
        for (const role of MERCHANT_ROLES) {
          const res: Answer = await send(calls[role]!);
          if (merchantMayDo(role, route.permission)) assert.ok(![401, 403, 404].includes(res.status) && res.status < 500, `${role}: ${res.status} ${res.text}`);
          else assert.equal(res.status, 403, `${role}: ${res.text}`);
        }
        const foreign = await send(strangerCall);
        if (route.list) {
          // A list the stranger may read names none of this merchant's objects (with merchant_id=this one: 404).
          assert.ok(foreign.status === 404 || (foreign.status < 300 && !foreign.text.includes(ids.payment) && !foreign.text.includes(ids.viewer) && !foreign.text.includes(ids.merchant)), `stranger: ${foreign.status} ${foreign.text.slice(0, 300)}`);
        } else {
          assert.equal(foreign.status, 404, `stranger: ${foreign.text}`);
        }
        const anonymous = await request(t.baseUrl, route.method, route.path(ids), { ...(route.body ? { body: route.body(ids) } : {}) });
        assert.equal(anonymous.status, 401);
      });
    }

    it('the export is CSV streamed with every cell quoted and a formula neutralised; the refund is in the merchant\'s audit log with the user', async () => {
      const csv = await calls.finance!('GET', '/portal/v1/payments/export');
      assert.equal(csv.status, 200);
      assert.match(csv.headers.get('content-type')!, /^text\/csv/);
      const lines = csv.text.trim().split('\r\n');
      assert.equal(lines[0], '"id","merchant_id","created_at","order_id","status","amount","currency","captured_amount","refunded_amount","method","card","payer_email"');
      assert.equal(lines.length, 5, 'the four payments of this merchant (two of them disputed), none of the other');
      assert.ok(lines.some((l) => l.includes(`"${ids.payment}"`) && l.includes('"\'=1+2"')), lines.join('\n'));
      const audit = await calls.owner!('GET', '/portal/v1/audit?limit=200');
      const refunds = audit.body.entries.filter((e: { action: string; object_id: string }) => e.action === 'payment.refund' && e.object_id === ids.payment);
      assert.ok(refunds.length >= 2, JSON.stringify(audit.body.entries.map((e: { action: string }) => e.action)));
      // The reason is its own field (details.reason_given), the user's name left as it is.
      assert.ok(refunds.every((e: { user_name: string; details: { reason_given?: string } }) => /^merchant:[^\s()]+@shop\.example$/.test(e.user_name) && e.details.reason_given === 'matrix'), JSON.stringify(refunds));
      const detail = await calls.viewer!('GET', `/portal/v1/payments/${ids.payment}`);
      assert.ok(detail.body.transactions.some((tx: { type: string; initiated_by: { kind: string } | null }) => tx.initiated_by?.kind === 'merchant_user'), detail.text);
      // The home's figures count this merchant's four payments only (the other merchant's sale is not in them).
      const figures = await calls.viewer!('GET', '/portal/v1/figures');
      assert.equal(figures.status, 200, figures.text);
      assert.equal(figures.body.totals.current.payments, 4, figures.text);
      assert.deepEqual(figures.body.groups.map((g: { key: string }) => g.key), [ids.merchant]);
      // The refunds export: the matrix's refunds of this merchant's payment, with the reason and the user; the disputes' header.
      const refundCsv = await calls.finance!('GET', '/portal/v1/refunds/export');
      assert.equal(refundCsv.status, 200, refundCsv.text);
      const refundLines = refundCsv.text.trim().split('\r\n');
      assert.equal(refundLines[0], '"id","payment_id","merchant_id","order_id","created_at","status","amount","currency","reason","initiated_by"');
      assert.ok(refundLines.length >= 3 && refundLines.slice(1).every((l) => l.includes(`"${ids.payment}"`) && l.includes('"\'=1+2"') && l.includes('"0.01"')), refundCsv.text);
      assert.ok(refundLines.slice(1).every((l) => /"matrix","merchant:[^"(]*"\s*$/.test(l)), refundCsv.text);
      const disputes = await calls.owner!('GET', '/portal/v1/disputes/export?created_from=2020-01-01');
      const disputeLines = disputes.text.trim().split('\r\n');
      assert.equal(disputeLines[0], '"id","payment_id","merchant_id","order_id","created_at","stage","status","amount","currency","reason_code","category","due_at"');
      assert.deepEqual(disputeLines.slice(1).map((l) => l.split(',')[0]).sort(), [`"${ids.dispute}"`, `"${ids.dispute2}"`].sort(), disputes.text);
      assert.equal((await calls.owner!('GET', '/portal/v1/refunds/export?created_from=2030-01-01&created_to=2020-01-01')).status, 400);
      const callbackCsv = (await calls.viewer!('GET', '/portal/v1/callbacks/export')).text.trim().split('\r\n');
      assert.equal(callbackCsv[0], '"id","merchant_id","payment_id","created_at","event_type","event_status","url","status","attempts","last_error","delivered_at"');
      assert.ok(callbackCsv.some((l) => l.startsWith(`"${ids.callback}","${ids.merchant}","${ids.payment}",`) && l.includes(`"${CALLBACKS}"`)), callbackCsv.join('\n'));
      assert.ok(callbackCsv.slice(1).every((l) => l.includes(`"${ids.merchant}"`)), 'this merchant\'s callbacks only');
      const secret = await calls.developer!('POST', '/portal/v1/developers/signing-secret/reveal', {});
      assert.match(secret.body.signing_secret, /^whsec_/);
    });
  });
}
