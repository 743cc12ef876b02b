/**
 * The settings an operator lets a merchant change in the portal (issue 30 item 3): portal_editable_settings in the
 * admin settings API (default none); the portal's developer settings show callback_fields, status_fields and
 * return_params with which are editable and the choices; a developer changes an allowed one and the next callback
 * carries the field; a setting not allowed is refused 403 naming it (nothing of the request changes); a viewer is
 * refused; the change is validated as the admin API validates it and is in the merchant's audit log with the user; a
 * change refused for one of its settings changes none of them (the notification URL beside it included).
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { storeKinds } from '../support/stores.ts';
import { startTestGateway, type TestGateway } from '../support/gateway.ts';
import { EMAIL, sale, startListener, type Listener } from '../s2s-card/support.ts';
import { adminClient } from '../admin/support.ts';
import { d3Messages } from '../admin/config-support.ts';
import { invitedUser, portalClient, portalSignIn } from './support.ts';

const ADMIN = 'portal-editable-settings-admin';

for (const { kind, skip } of await storeKinds()) {
  describe(`portal: settings the operator lets merchants change (${kind})`, { skip }, () => {
    let t: TestGateway;
    let listener: Listener;
    before(async () => {
      listener = await startListener();
      t = await startTestGateway(kind, { workers: true, notificationUrl: listener.url, adminToken: ADMIN });
    });
    after(async () => {
      await t?.close();
      await listener?.close();
    });

    it('changes only what the operator allows, through the same validation, audited; the next callback carries the field', async () => {
      const admin = adminClient(t.baseUrl, ADMIN);
      const settingsPath = `/admin/v1/merchants/${t.merchant.id}/settings`;
      const dev = portalClient(t.baseUrl, await portalSignIn(t.baseUrl, (await invitedUser(t, ADMIN, { role: 'developer' })).email));
      const viewer = portalClient(t.baseUrl, await portalSignIn(t.baseUrl, (await invitedUser(t, ADMIN, { role: 'viewer' })).email));

      // By default the merchant changes none of them; the values and the choices are shown.
      assert.deepEqual((await admin('GET', settingsPath)).body.portal_editable_settings, []);
      const shown = await dev('GET', '/portal/v1/developers');
      assert.equal(shown.status, 200, shown.text);
      assert.deepEqual([shown.body.callback_fields, shown.body.status_fields, shown.body.return_params, shown.body.editable_settings], [[], [], [], []]);
      assert.ok(shown.body.choices.fields.some((f: { name: string; wire: string[] }) => f.name === 'rrn' && f.wire.includes('ARN')), 'the Protocol Mapping table');
      assert.deepEqual(shown.body.choices.return_params, ['payment_method', 'brand', 'checkout_payment_method']);
      const locked = await dev('PATCH', '/portal/v1/developers', { callback_fields: ['payer_email'] });
      assert.equal(locked.status, 403, locked.text);
      assert.deepEqual(d3Messages(locked as never), ['callback_fields: Your payment provider does not let you change this setting.']);

      // The operator allows callback_fields (validated, audited).
      assert.equal((await admin('PATCH', settingsPath, { portal_editable_settings: ['notification_url'] })).status, 400);
      const allowed = await admin('PATCH', settingsPath, { portal_editable_settings: ['callback_fields'] });
      assert.equal(allowed.status, 200, allowed.text);
      assert.deepEqual(allowed.body.portal_editable_settings, ['callback_fields']);
      assert.deepEqual((await dev('GET', '/portal/v1/developers')).body.editable_settings, ['callback_fields']);

      // A setting still not allowed is refused with the allowed one beside it: nothing of the request changes.
      const mixed = await dev('PATCH', '/portal/v1/developers', { callback_fields: ['payer_email'], return_params: ['payment_method'], notification_url: 'https://elsewhere.example/cb' });
      assert.equal(mixed.status, 403, mixed.text);
      assert.deepEqual(d3Messages(mixed as never), ['return_params: Your payment provider does not let you change this setting.']);
      const untouched = (await admin('GET', settingsPath)).body;
      assert.deepEqual([untouched.callback_fields, untouched.return_params], [[], []]);
      assert.equal((await dev('GET', '/portal/v1/developers')).body.notification_url, listener.url);

      // The admin API's validation, and the role: a viewer may not change it.
      const bad = await dev('PATCH', '/portal/v1/developers', { callback_fields: ['card_number'] });
      assert.equal(bad.status, 400, bad.text);
      assert.match(d3Messages(bad as never).join(), /^callback_fields\[0\]/);
      assert.equal((await viewer('PATCH', '/portal/v1/developers', { callback_fields: ['payer_email'] })).status, 403);
      // A change refused for one of its settings changes none: the notification URL beside a bad address stays.
      const audited = (await admin('GET', `/admin/v1/audit-log?object_id=${t.merchant.id}`)).body.entries.length;
      const halfBad = await dev('PATCH', '/portal/v1/developers', { notification_url: 'https://elsewhere.example/cb', allowed_source_addresses: ['203.0.113.0/24', 'not an address'] });
      assert.equal(halfBad.status, 400, halfBad.text);
      assert.deepEqual(d3Messages(halfBad as never), ['allowed_source_addresses[1]: This value is not a valid IP address or CIDR block.']);
      const kept = (await dev('GET', '/portal/v1/developers')).body;
      assert.deepEqual([kept.notification_url, kept.allowed_source_addresses], [listener.url, []]);
      assert.equal((await admin('GET', `/admin/v1/audit-log?object_id=${t.merchant.id}`)).body.entries.length, audited, 'nothing audited');

      const changed = await dev('PATCH', '/portal/v1/developers', { callback_fields: ['payer_email'] });
      assert.equal(changed.status, 200, changed.text);
      assert.deepEqual(changed.body.callback_fields, ['payer_email']);
      assert.deepEqual((await admin('GET', settingsPath)).body.callback_fields, ['payer_email'], 'the operator sees the merchant\'s change');

      // The next payment's callback carries the field.
      const paid = await sale(t);
      assert.equal(paid.body.status, 'SETTLED', paid.text);
      const deadline = Date.now() + 20_000;
      let callback: Record<string, unknown> | undefined;
      while (!callback) {
        callback = listener.received.find((r) => r.fields.trans_id === paid.body.trans_id && r.fields.status === 'SETTLED')?.fields;
        if (!callback && Date.now() > deadline) throw new Error(`no callback for ${paid.body.trans_id}`);
        if (!callback) await new Promise((r) => setTimeout(r, 100));
      }
      assert.equal(callback.payer_email, EMAIL);

      // In the merchant's own audit log, with the merchant user.
      const owner = portalClient(t.baseUrl, await portalSignIn(t.baseUrl, (await invitedUser(t, ADMIN, { role: 'owner' })).email));
      const entries = (await owner('GET', '/portal/v1/audit')).body.entries as { action: string; user_name: string; after: Record<string, unknown> }[];
      const entry = entries.find((e) => e.action === 'merchant.settings.update' && e.user_name.startsWith('merchant:developer-'));
      assert.ok(entry, JSON.stringify(entries));
      assert.deepEqual(entry.after, { callback_fields: ['payer_email'] });
    });
  });
}
