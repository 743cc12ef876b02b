/**
 * MIDs through the admin API, on both stores: every endpoint and role, credentials sealed and masked, malformed
 * bodies answered with D3 400s, and a MID's payment mode changing routing at the next request.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { Type } from '@sinclair/typebox';
import { storeKinds } from '../support/stores.ts';
import { startTestGateway, type TestGateway, type TestMerchant } from '../support/gateway.ts';
import { adminCall, d3Messages, tokenFor } from './config-support.ts';
import { errorOf, sale } from '../s2s-card/support.ts';
import { listMids, openMidCredentials } from '../../src/store/merchants-repo.ts';
import { getPayment } from '../../src/store/payments-repo.ts';
import type { CardConnector } from '../../src/connectors/types.ts';

const SECRET = 'sk_live_0123456789abcdef';

for (const { kind, skip } of await storeKinds()) {
  describe(`admin MIDs (${kind})`, { skip }, () => {
    let t: TestGateway;
    const ADMIN = `admin-${kind}-token`;
    const tokens: Record<string, string> = {};
    const call = (method: string, path: string, token: string | undefined, body?: unknown) => adminCall(t.baseUrl, method, path, token, body);
    const mids = (m: TestMerchant) => `/admin/v1/merchants/${m.id}/mids`;

    before(async () => {
      t = await startTestGateway(kind, { adminToken: ADMIN });
      for (const role of ['operator', 'support', 'viewer'] as const) tokens[role] = await tokenFor(t, role);
      // A connector declaring its settings and credentials, as acquirer connectors do.
      const sandbox = t.gateway.ctx.connectors.get('sandbox-card') as CardConnector;
      const declared: CardConnector = Object.assign(Object.create(sandbox) as CardConnector, {
        name: 'declared-card',
        settingsSchema: Type.Object({ terminal_id: Type.String({ minLength: 1, maxLength: 16 }) }, { additionalProperties: false }),
        credentialsSchema: Type.Object({ api_key: Type.String({ minLength: 16 }) }, { additionalProperties: false }),
      });
      (t.gateway.ctx.connectors as Map<string, CardConnector>).set(declared.name, declared);
    });
    after(async () => t?.close());

    it('creates a MID with every field, credentials sealed at rest and answered masked', async () => {
      const m = await t.addMerchant({ mids: [] });
      const res = await call('POST', mids(m), tokens.operator, {
        connector: 'declared-card', name: 'EUR acquiring', payment_mode: 'DMS', priority: 7, currencies: ['EUR', 'USD'],
        min_amount: '1.00', max_amount: '5000.50', descriptor: 'SHOP*ORDER', card_on_file_support: true,
        settings: { terminal_id: 'T-1001' }, credentials: { api_key: SECRET },
      });
      assert.equal(res.status, 201, res.text);
      assert.deepEqual({ ...res.body, id: undefined }, {
        id: undefined, merchant_id: m.id, name: 'EUR acquiring', connector: 'declared-card', payment_mode: 'DMS', priority: 7, enabled: true,
        currencies: ['EUR', 'USD'], min_amount: '1.00', max_amount: '5000.50', daily_caps: null, descriptor: 'SHOP*ORDER', card_on_file_support: true,
        settings: { terminal_id: 'T-1001' }, credentials: { api_key: '****cdef' }, credentials_key_id: t.gateway.ctx.keyring.activeKeyId,
        today: { day: t.gateway.ctx.clock.now().toISOString().slice(0, 10), volume: {} }, // the day's usage, as a read answers it
      });
      assert.ok(!res.text.includes(SECRET));
      const [row] = await t.store.db.query<{ credentials: unknown }>('SELECT credentials FROM mids WHERE id = $1', [res.body.id]);
      assert.ok(!JSON.stringify(row!.credentials).includes(SECRET), 'credentials are not stored in clear');
      const [stored] = await listMids(t.store.db, m.id);
      assert.deepEqual(openMidCredentials(t.gateway.ctx.keyring, stored!).expose(), { api_key: SECRET });
      const audit = await t.store.db.query<{ action: string; after: string }>("SELECT action, after::text AS after FROM audit_log WHERE object_id = $1", [res.body.id]);
      assert.deepEqual(audit.map((a) => a.action), ['mid.create']);
      assert.ok(audit[0]!.after.includes('****cdef') && !audit[0]!.after.includes(SECRET), 'the audit log holds the mask, never the secret');
    });

    it('defaults to SMS/DMS, priority 0, enabled, named after the connector', async () => {
      const m = await t.addMerchant({ mids: [] });
      const res = await call('POST', mids(m), ADMIN, { connector: 'sandbox-card' });
      assert.equal(res.status, 201, res.text);
      assert.equal(res.body.payment_mode, 'SMS/DMS');
      assert.equal(res.body.priority, 0);
      assert.equal(res.body.enabled, true);
      assert.equal(res.body.name, 'sandbox-card');
      assert.equal(res.body.credentials, null);
    });

    it('lists, gets and answers 404 for unknown merchants and MIDs', async () => {
      const m = await t.addMerchant({ mids: [{ paymentMode: 'SMS' }] });
      const list = await call('GET', mids(m), tokens.viewer);
      assert.equal(list.status, 200, list.text);
      assert.equal(list.body.mids.length, 1);
      const one = await call('GET', `${mids(m)}/${list.body.mids[0].id}`, tokens.support);
      assert.deepEqual(one.body, list.body.mids[0]);
      for (const path of ['/admin/v1/merchants/0193a0c4-0000-7000-8000-000000000000/mids', '/admin/v1/merchants/not-an-id/mids', `${mids(m)}/0193a0c4-0000-7000-8000-000000000000`, `${mids(m)}/nope`]) {
        const res = await call('GET', path, ADMIN);
        assert.equal(res.status, 404, path);
        d3Messages(res);
      }
      const other = await t.addMerchant();
      const otherMid = (await call('GET', mids(other), ADMIN)).body.mids[0].id;
      assert.equal((await call('GET', `${mids(m)}/${otherMid}`, ADMIN)).status, 404, 'another merchant\'s MID is not found here');
    });

    it('lets support and viewer read but not write (403), and nobody without a token (401)', async () => {
      const m = await t.addMerchant();
      const midId = (await call('GET', mids(m), ADMIN)).body.mids[0].id;
      for (const role of ['support', 'viewer']) {
        for (const [method, path, body] of [
          ['POST', mids(m), { connector: 'sandbox-card' }],
          ['PATCH', `${mids(m)}/${midId}`, { priority: 3 }],
          ['POST', `${mids(m)}/${midId}/disable`, undefined],
          ['PUT', `${mids(m)}/order`, { mid_ids: [midId] }],
        ] as const) {
          const res = await call(method, path, tokens[role], body);
          assert.equal(res.status, 403, `${role} ${method} ${path}`);
          d3Messages(res);
        }
        assert.equal((await call('GET', mids(m), tokens[role])).status, 200);
      }
      assert.equal((await call('GET', mids(m), undefined)).status, 401);
      assert.equal((await call('POST', mids(m), 'pcop_unknown', { connector: 'sandbox-card' })).status, 401);
      assert.equal((await listMids(t.store.db, m.id)).length, 1, 'nothing was created');
    });

    it('answers malformed bodies with D3 400s and writes nothing', async () => {
      const m = await t.addMerchant({ mids: [] });
      const cases: [unknown, string][] = [
        [{ connector: 'no-such-connector' }, 'connector: The value you selected is not a valid choice.'],
        [{ connector: 'sandbox-card', payment_mode: 'BOTH' }, 'payment_mode'],
        [{ connector: 'sandbox-card', min_amount: 10.5 }, 'min_amount'],
        [{ connector: 'sandbox-card', min_amount: '1e3' }, 'min_amount'],
        [{ connector: 'sandbox-card', min_amount: '100.00', max_amount: '99.99' }, 'min_amount: This value should be less than or equal to 99.99.'],
        [{ connector: 'sandbox-card', currencies: ['EURO'] }, 'currencies[0]'],
        [{ connector: 'sandbox-card', currencies: ['XXQ'] }, 'currencies: This value is not a valid currency.'],
        [{ connector: 'sandbox-card', priority: 1.5 }, 'priority'],
        [{ connector: 'sandbox-card', surprise: true }, 'surprise'],
        [{ connector: 'sandbox-card', credentials: { api_key: 42 } }, 'credentials'],
        [{ connector: 'sandbox-card', settings: { nested: { deep: true } } }, 'settings: This value is not valid.'],
        [{ connector: 'declared-card', settings: { terminal_id: '' } }, 'settings.terminal_id'],
        [{ connector: 'declared-card', settings: { terminal_id: 'T1' }, credentials: { api_key: 'short' } }, 'credentials.api_key'],
        [{ connector: 'declared-card', settings: { terminal_id: 'T1', extra: 1 } }, 'settings.extra'],
        [{}, 'connector: This value should not be blank.'],
        [[], 'request'],
        ['{"connector":', 'request: This value should be valid JSON.'],
        [{ connector: 'sandbox-card', descriptor: 'x\u0000y' }, 'request'],
      ];
      for (const [body, expected] of cases) {
        const res = await call('POST', mids(m), ADMIN, body);
        assert.equal(res.status, 400, `${JSON.stringify(body)} -> ${res.status} ${res.text}`);
        const messages = d3Messages(res);
        assert.ok(messages.some((msg) => msg.startsWith(expected)), `${JSON.stringify(body)}: ${JSON.stringify(messages)} lacks ${expected}`);
      }
      assert.equal((await listMids(t.store.db, m.id)).length, 0);
      const patch = await call('PATCH', `${mids(m)}/0193a0c4-0000-7000-8000-000000000000`, ADMIN, {});
      assert.equal(patch.status, 400, 'an empty patch is refused before anything is looked up');
    });

    it('patches fields, merges and removes credentials, enables and disables, never deletes', async () => {
      const m = await t.addMerchant({ mids: [] });
      const created = (await call('POST', mids(m), ADMIN, { connector: 'sandbox-card', credentials: { login: 'merchant-login-0001', password: 'pa55word-very-long' } })).body;
      const path = `${mids(m)}/${created.id}`;
      const patched = await call('PATCH', path, tokens.operator, { descriptor: 'NEW*DESC', credentials: { password: 'rotated-password-9876', login: null }, currencies: null, max_amount: '10.00' });
      assert.equal(patched.status, 200, patched.text);
      assert.equal(patched.body.descriptor, 'NEW*DESC');
      assert.equal(patched.body.max_amount, '10.00');
      assert.deepEqual(patched.body.credentials, { password: '****9876' });
      const [stored] = await listMids(t.store.db, m.id);
      assert.deepEqual(openMidCredentials(t.gateway.ctx.keyring, stored!).expose(), { password: 'rotated-password-9876' });
      assert.equal((await call('POST', `${path}/disable`, tokens.operator)).body.enabled, false);
      assert.equal((await call('GET', path, ADMIN)).body.enabled, false);
      assert.equal((await call('POST', `${path}/enable`, tokens.operator)).body.enabled, true);
      assert.equal((await call('DELETE', path, ADMIN)).status, 404, 'there is no delete');
      const cleared = await call('PATCH', path, ADMIN, { credentials: null });
      assert.equal(cleared.body.credentials, null);
      const audit = await t.store.db.query<{ action: string }>('SELECT action FROM audit_log WHERE object_id = $1 ORDER BY at, id', [created.id]);
      assert.deepEqual(audit.map((a) => a.action).sort(), ['mid.create', 'mid.disable', 'mid.enable', 'mid.update', 'mid.update'].sort());
    });

    it('loses no credential when operators patch one MID at the same time', async () => {
      const m = await t.addMerchant({ mids: [] });
      const created = (await call('POST', mids(m), ADMIN, { connector: 'sandbox-card' })).body;
      const names = ['a', 'b', 'c', 'd', 'e', 'f'];
      const answers = await Promise.all(names.map((n) => call('PATCH', `${mids(m)}/${created.id}`, tokens.operator, { credentials: { [`key_${n}`]: `secret-value-${n}-000000` } })));
      for (const a of answers) assert.equal(a.status, 200, a.text);
      const [stored] = await listMids(t.store.db, m.id);
      assert.deepEqual(Object.keys(openMidCredentials(t.gateway.ctx.keyring, stored!).expose()).sort(), names.map((n) => `key_${n}`));
    });

    it('reorders MIDs: the first listed gets the highest priority and routing follows', async () => {
      const m = await t.addMerchant({ mids: [] });
      const a = (await call('POST', mids(m), ADMIN, { connector: 'sandbox-card', name: 'A', priority: 5 })).body;
      const b = (await call('POST', mids(m), ADMIN, { connector: 'sandbox-card', name: 'B', priority: 1 })).body;
      const res = await call('PUT', `${mids(m)}/order`, tokens.operator, { mid_ids: [b.id, a.id] });
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(res.body.mids.map((x: { name: string }) => x.name), ['B', 'A']);
      assert.ok(res.body.mids[0].priority > res.body.mids[1].priority);
      for (const bad of [[a.id], [a.id, a.id], [a.id, b.id, '0193a0c4-0000-7000-8000-000000000000']]) {
        const wrong = await call('PUT', `${mids(m)}/order`, ADMIN, { mid_ids: bad });
        assert.equal(wrong.status, 400);
        assert.deepEqual(d3Messages(wrong), ['mid_ids: This value should list every MID of the merchant once.']);
      }
    });

    it('routes only payments within a MID\'s currencies and amounts', async () => {
      const m = await t.addMerchant({ mids: [] });
      const created = (await call('POST', mids(m), ADMIN, { connector: 'sandbox-card', currencies: ['EUR'] })).body;
      const path = `${mids(m)}/${created.id}`;
      assert.equal(errorOf(await sale(t, { order_currency: 'USD' }, m)).error_code, '204002', 'USD is not among its currencies');
      assert.equal((await sale(t, { order_currency: 'EUR' }, m)).body.status, 'SETTLED');
      await call('PATCH', path, tokens.operator, { currencies: null, max_amount: '1.50' });
      assert.equal(errorOf(await sale(t, { order_amount: '1.99' }, m)).error_code, '204002', 'above its max_amount');
      assert.equal((await sale(t, { order_amount: '1.50' }, m)).body.status, 'SETTLED');
      await call('PATCH', path, tokens.operator, { max_amount: null, min_amount: '2.00' });
      assert.equal(errorOf(await sale(t, { order_amount: '1.99' }, m)).error_code, '204002', 'below its min_amount');
      assert.equal((await sale(t, { order_amount: '0', auth: 'Y' }, m)).body.status, 'PENDING', 'a zero authorization is not held to amounts');
    });

    it('records a MID kept out by its limits in the payment\'s routing decision, with the reason', async () => {
      const m = await t.addMerchant({ mids: [] });
      const eurOnly = (await call('POST', mids(m), ADMIN, { connector: 'sandbox-card', priority: 9, currencies: ['EUR'] })).body;
      const any = (await call('POST', mids(m), ADMIN, { connector: 'sandbox-card', priority: 1 })).body;
      const paid = await sale(t, { order_currency: 'USD' }, m);
      assert.equal(paid.body.status, 'SETTLED', paid.text);
      const payment = await getPayment(t.store.db, paid.body.trans_id);
      assert.equal(payment!.midId, any.id);
      const considered = (payment!.details.routing as { considered: { midId: string; eligible: boolean; reason?: string }[] }).considered;
      assert.deepEqual(considered.find((c) => c.midId === eurOnly.id), { midId: eurOnly.id, priority: 9, eligible: false, reason: 'currency' });
    });

    it('puts the MID\'s descriptor in the answers of the payments it carried', async () => {
      const m = await t.addMerchant({ mids: [] });
      const created = (await call('POST', mids(m), ADMIN, { connector: 'sandbox-card', descriptor: 'SHOP*ORDER 42' })).body;
      const first = await sale(t, {}, m);
      assert.equal(first.body.descriptor, 'SHOP*ORDER 42', first.text);
      await call('PATCH', `${mids(m)}/${created.id}`, ADMIN, { descriptor: null });
      assert.equal((await sale(t, {}, m)).body.descriptor, 'Test Shop', 'without one, the merchant\'s name');
    });

    it('lists the connectors a MID may name, with their schemas', async () => {
      const res = await call('GET', '/admin/v1/connectors', tokens.viewer);
      assert.equal(res.status, 200, res.text);
      const byName = new Map(res.body.connectors.map((c: { name: string }) => [c.name, c]));
      assert.deepEqual(byName.get('sandbox-card'), { name: 'sandbox-card', settings_schema: null, credentials_schema: null });
      const declared = byName.get('declared-card') as { settings_schema: any; credentials_schema: any };
      assert.deepEqual(declared.settings_schema.required, ['terminal_id']);
      assert.equal(declared.credentials_schema.properties.api_key.minLength, 16);
      assert.equal((await call('GET', '/admin/v1/connectors', undefined)).status, 401);
    });

    it('changes routing at the next request when a MID\'s payment mode changes (Endpoints rule 7)', async () => {
      const m = await t.addMerchant({ mids: [{ paymentMode: 'SMS' }] });
      const midId = (await call('GET', mids(m), ADMIN)).body.mids[0].id;
      // Warm the merchant cache with an SMS MID: an authorization has nowhere to go.
      assert.equal((await sale(t, {}, m)).body.status, 'SETTLED');
      assert.equal(errorOf(await sale(t, { auth: 'Y' }, m)).error_code, '204002');
      assert.equal((await call('PATCH', `${mids(m)}/${midId}`, tokens.operator, { payment_mode: 'DMS' })).status, 200);
      const auth = await sale(t, { auth: 'Y' }, m);
      assert.equal(auth.body.status, 'PENDING', auth.text);
      assert.equal((await call('PATCH', `${mids(m)}/${midId}`, tokens.operator, { payment_mode: 'SMS' })).status, 200);
      assert.deepEqual(errorOf(await sale(t, { auth: 'Y' }, m)), { http_code: 400, error_code: '204002', error_message: 'Enabled merchant mappings or MIDs not found.', result: 'ERROR' });
      assert.equal((await call('POST', `${mids(m)}/${midId}/disable`, tokens.operator)).status, 200);
      assert.equal(errorOf(await sale(t, {}, m)).error_code, '204002', 'a disabled MID takes nothing');
    });
  });
}
