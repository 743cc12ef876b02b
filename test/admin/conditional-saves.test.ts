/**
 * Conditional saves of configuration (RFC 9110 ETag and If-Match), on both stores: a merchant's routing rules, money
 * terms and Wallets tab (replaced whole), its settings, a MID and the merchant itself (changed in part). The read answers an ETag; a save with If-Match goes ahead only over the configuration
 * read (else 412 in the D3 body, nothing written, nothing audited); two saves built on the same read, sent at once,
 * end with one saved and one refused; a save without If-Match replaces as before.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { storeKinds } from '../support/stores.ts';
import { startTestGateway, type TestGateway } from '../support/gateway.ts';
import { merchantWith, tokenFor } from './config-support.ts';
import { newId } from '../../src/domain/ids.ts';
import { sale } from '../s2s-card/support.ts';

const ADMIN = 'conditional-saves-admin-token';
const TAG = /^"[A-Za-z0-9_-]{27}"$/;
const CHANGED = 'If-Match: The configuration was saved by someone else since it was read (its ETag differs): read it again.';

interface Answer { status: number; etag: string | null; body: any; text: string }

for (const { kind, skip } of await storeKinds()) {
  describe(`conditional saves of configuration (${kind})`, { skip }, () => {
    let t: TestGateway;
    let operator: string;
    before(async () => {
      t = await startTestGateway(kind, { adminToken: ADMIN });
      operator = await tokenFor(t, 'admin');
    });
    after(async () => t?.close());

    async function send(method: string, path: string, body?: unknown, ifMatch?: string): Promise<Answer> {
      const headers: Record<string, string> = { authorization: `Bearer ${operator}` };
      if (body !== undefined) headers['content-type'] = 'application/json';
      if (ifMatch !== undefined) headers['if-match'] = ifMatch;
      const res = await fetch(t.baseUrl + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
      const text = await res.text();
      return { status: res.status, etag: res.headers.get('etag'), body: text ? JSON.parse(text) : undefined, text };
    }

    const audits = async (action: string, merchantId: string) =>
      Number((await t.store.db.query<{ n: string }>('SELECT count(*)::text AS n FROM audit_log WHERE action = $1 AND object_id = $2', [action, merchantId]))[0]!.n);

    /** The configuration's read, a save over it, a stale save refused, concurrent saves over one read, saves without a tag. */
    async function conditionalSaves(path: string, action: string, merchantId: string, versions: readonly unknown[], save = 'PUT') {
      const [first, second, third, fourth] = versions;
      const read = await send('GET', path);
      assert.equal(read.status, 200, read.text);
      assert.match(read.etag ?? '', TAG, 'the read answers an ETag');

      const saved = await send(save, path, first, read.etag!);
      assert.equal(saved.status, 200, saved.text);
      assert.match(saved.etag ?? '', TAG);
      assert.notEqual(saved.etag, read.etag, 'the saved configuration has a tag of its own');
      assert.equal((await send('GET', path)).etag, saved.etag, 'and a read answers the same tag');

      // A second operator, still on the first read, saves over it: refused, nothing written, nothing audited.
      const before = await audits(action, merchantId);
      const stale = await send(save, path, second, read.etag!);
      assert.equal(stale.status, 412, stale.text);
      assert.deepEqual(stale.body, { http_code: 412, error_code: '100000', error_message: CHANGED });
      assert.equal(stale.etag, null, 'a refusal answers no tag');
      const now = await send('GET', path);
      assert.equal(now.etag, saved.etag, 'the first save stands');
      // A MID's answers add the day's usage (`today`), which its tag leaves out.
      assert.deepEqual({ ...now.body, today: undefined }, { ...saved.body, today: undefined });
      assert.equal(await audits(action, merchantId), before, 'nothing audited');

      // Two saves built on the same read, at once: one is saved, the other refused (the compare-and-set).
      const race = await Promise.all([send(save, path, third, now.etag!), send(save, path, fourth, now.etag!)]);
      assert.deepEqual(race.map((r) => r.status).sort(), [200, 412], race.map((r) => r.text).join(' | '));
      const winner = race.find((r) => r.status === 200)!;
      assert.equal((await send('GET', path)).etag, winner.etag);
      assert.equal(await audits(action, merchantId), before + 1);

      // `*`, a list naming the current tag, and no header at all save; a weak tag does not.
      assert.equal((await send(save, path, first, `W/${winner.etag}`)).status, 412);
      assert.equal((await send(save, path, first, `"stale", ${winner.etag}`)).status, 200);
      assert.equal((await send(save, path, second, '*')).status, 200);
      const unconditional = await send(save, path, third);
      assert.equal(unconditional.status, 200, 'a save without If-Match replaces as before');
      assert.equal((await send('GET', path)).etag, unconditional.etag);
    }

    it('routing rules: saved over the rules read, refused with 412 over a stale read', async () => {
      const [a, b] = [newId(), newId()];
      const m = await merchantWith(t, [{ id: a, priority: 30 }, { id: b, priority: 20 }]);
      const to = (mid: string, currency: string) => ({ rules: [{ name: `${currency} to ${mid.slice(0, 4)}`, when: { currencies: [currency] }, then: { kind: 'mid', mid_id: mid } }], max_extra_attempts: 1 });
      await conditionalSaves(`/admin/v1/merchants/${m.id}/routing`, 'merchant.routing', m.id, [to(a, 'EUR'), to(b, 'EUR'), to(a, 'USD'), to(b, 'USD')]);
    });

    it('money terms: saved over the terms read, refused with 412 over a stale read', async () => {
      const m = await merchantWith(t, [{ id: newId(), priority: 10 }]);
      const terms = (days: number) => ({ country: 'DE', settlement_delay_days: days, reserve_percent: '5', reserve_days: 90 });
      await conditionalSaves(`/admin/v1/merchants/${m.id}/money/terms`, 'merchant.money_terms', m.id, [terms(1), terms(2), terms(3), terms(4)]);
    });

    it('settings: a change over the settings read, refused with 412 over a stale read', async () => {
      const m = await merchantWith(t, [{ id: newId(), priority: 10 }]);
      const require = (field: string) => ({ payer_fields: { [field]: 'required' } });
      await conditionalSaves(`/admin/v1/merchants/${m.id}/settings`, 'merchant.settings.update', m.id, [require('payer_zip'), require('payer_address'), require('payer_city'), require('payer_phone')], 'PATCH');
    });

    it('wallets: set over the tab read, refused with 412 over a stale read', async () => {
      const m = await merchantWith(t, [{ id: newId(), priority: 10 }]);
      const google = (id: string) => ({ google_pay: { environment: 'TEST', allowed_auth_methods: ['PAN_ONLY'], supported_networks: ['VISA'], merchant_identifier: id, gateway: 'portcullis', gateway_merchant_id: id, extra_parameters: false } });
      await conditionalSaves(`/admin/v1/merchants/${m.id}/wallets`, 'merchant.wallets.update', m.id, [google('M1'), google('M2'), google('M3'), google('M4')]);
    });

    it('a MID: changed over the MID read (its ETag leaves the day\'s usage out), refused with 412 over a stale read', async () => {
      const midId = newId();
      const m = await merchantWith(t, [{ id: midId, priority: 10 }]);
      const named = (name: string) => ({ name });
      const path = `/admin/v1/merchants/${m.id}/mids/${midId}`;
      await conditionalSaves(path, 'mid.update', midId, [named('First'), named('Second'), named('Third'), named('Fourth')], 'PATCH');
      // A payment on the MID changes the day's usage the read shows (counted for a MID with a daily cap), not the MID's
      // tag: a form read before it still saves.
      assert.equal((await send('PATCH', path, { daily_caps: { USD: { max_count: 1000 }, EUR: { max_count: 1000 } } })).status, 200);
      const before = await send('GET', path);
      const paid = await sale(t, {}, m);
      assert.equal(paid.body.status, 'SETTLED', paid.text);
      const after = await send('GET', path);
      assert.notDeepEqual(after.body.today, before.body.today);
      assert.equal(after.etag, before.etag);
      const renamed = await send('PATCH', path, named('After a payment'), before.etag!);
      assert.equal(renamed.status, 200, renamed.text);
      assert.deepEqual(renamed.body.today, after.body.today, 'a change answers the day\'s usage as a read does');
    });

    it('a merchant: changed over the merchant read, refused with 412 over a stale read; disabling or a new password leaves its tag', async () => {
      const m = await merchantWith(t, [{ id: newId(), priority: 10 }]);
      const path = `/admin/v1/merchants/${m.id}`;
      await conditionalSaves(path, 'merchant.update', m.id, [{ name: 'First' }, { name: 'Second' }, { notification_url: 'https://shop.example/third' }, { hash_algorithm: 'sha256' }], 'PATCH');
      const read = await send('GET', path);
      const disabled = await send('POST', `${path}/disable`);
      assert.equal(disabled.status, 200, disabled.text);
      assert.equal(disabled.etag, read.etag, 'disabling is not an edit of the form read');
      assert.equal((await send('POST', `${path}/password`, { grace_hours: 0 })).status, 200);
      assert.equal((await send('GET', path)).etag, read.etag);
      const renamed = await send('PATCH', path, { name: 'After a rotation' }, read.etag!);
      assert.equal(renamed.status, 200, renamed.text);
      assert.equal(renamed.body.disabled, true, 'the form\'s change leaves the merchant disabled');
    });

    it('a save with If-Match on a merchant that does not exist is not found, not refused', async () => {
      const missing = `/admin/v1/merchants/${newId()}`;
      assert.equal((await send('PUT', `${missing}/routing`, { rules: [], max_extra_attempts: 1 }, '"x"')).status, 404);
      assert.equal((await send('PUT', `${missing}/money/terms`, { settlement_delay_days: 1 }, '"x"')).status, 404);
      assert.equal((await send('PATCH', `${missing}/settings`, { payer_fields: { payer_zip: 'required' } }, '"x"')).status, 404);
      assert.equal((await send('PATCH', missing, { name: 'Nobody' }, '"x"')).status, 404);
    });
  });
}
