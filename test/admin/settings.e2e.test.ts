/**
 * A merchant's admin-panel settings, configured through the admin API and observed through the merchant
 * channels over real HTTP, on both stores: Protocol Mapping for callbacks and for status answers separately,
 * Override Link Target, Return additional parameters, Required payer fields of S2S CARD; plus the endpoint's
 * own rules (roles, malformed bodies, the token-call private key sealed and shown as a fingerprint).
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { storeKinds } from '../support/stores.ts';
import { startTestGateway, type TestGateway, type TestMerchant } from '../support/gateway.ts';
import { checkoutHash } from '../support/merchant.ts';
import { adminCall, d3Messages, tokenFor } from './config-support.ts';
import { EMAIL, errorOf, followUp, messages, sale, startListener, type Listener } from '../s2s-card/support.ts';
import { loadMerchantConfig, openOptionSecrets } from '../../src/store/merchant-config-repo.ts';
import { findMerchantById } from '../../src/store/merchants-repo.ts';

/** A Checkout session body as the merchant signs it. */
function sessionBody(m: TestMerchant, extra: Record<string, unknown> = {}) {
  const order = { number: `order-${Math.random().toString(36).slice(2)}`, amount: '10.00', currency: 'USD', description: 'Test order' };
  return {
    merchant_key: m.key, operation: 'purchase', methods: ['card'], order,
    success_url: 'https://shop.example/success', cancel_url: 'https://shop.example/cancel',
    customer: { name: 'John Doe', email: 'success@gmail.com' },
    billing_address: { country: 'GB', city: 'London', address: '1 Main Street', zip: 'SW1A1AA', phone: '+441234567' },
    hash: checkoutHash(m.password, order.number, order.amount, order.currency, order.description),
    ...extra,
  };
}

/** Opens a session and pays it on the hosted page's form; returns the redirect page's merchant link. */
async function payOnCheckout(t: TestGateway, m: TestMerchant, extra: Record<string, unknown> = {}): Promise<{ url: URL; target: string }> {
  const session = await t.postJson('/api/v1/session', sessionBody(m, extra));
  assert.equal(session.status, 200, session.text);
  const path = new URL(session.body.redirect_url).pathname;
  const res = await fetch(`${t.baseUrl}${path}/pay`, {
    method: 'POST', redirect: 'manual', headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ method: 'card', card_number: '4111 1111 1111 1111', card_expiry: '01/38', card_cvv: '123', card_holder: 'John Doe' }).toString(),
  });
  const html = (await res.text()).replace(/&amp;/g, '&');
  const link = /<a[^>]*id="redirect-link"[^>]*>/.exec(html)?.[0];
  assert.ok(link, `the page links back to the merchant: ${html.slice(html.indexOf("<main"), html.indexOf("<main") + 1500)}`);
  const href = /href="([^"]+)"/.exec(link)?.[1];
  const target = /target="([^"]+)"/.exec(link)?.[1];
  assert.ok(href && target);
  return { url: new URL(href), target };
}

for (const { kind, skip } of await storeKinds()) {
  describe(`admin settings (${kind})`, { skip }, () => {
    let t: TestGateway;
    let listener: Listener;
    const ADMIN = `admin-settings-${kind}`;
    const tokens: Record<string, string> = {};
    const call = (method: string, path: string, token: string | undefined, body?: unknown) => adminCall(t.baseUrl, method, path, token, body);
    const settingsOf = (m: TestMerchant) => `/admin/v1/merchants/${m.id}/settings`;

    before(async () => {
      listener = await startListener();
      t = await startTestGateway(kind, { adminToken: ADMIN, workers: true });
      for (const role of ['operator', 'support', 'viewer'] as const) tokens[role] = await tokenFor(t, role);
    });
    after(async () => {
      await t?.close();
      await listener?.close();
    });

    it('answers the defaults: nothing optional on, every payer field Optional, no override', async () => {
      const m = await t.addMerchant();
      const res = await call('GET', settingsOf(m), tokens.viewer);
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(res.body.callback_fields, []);
      assert.deepEqual(res.body.status_fields, []);
      assert.deepEqual(res.body.return_params, []);
      assert.equal(res.body.checkout_payment_method, false);
      assert.equal(res.body.override_link_target, null);
      assert.equal(res.body.payer_fields.payer_zip, 'optional');
      assert.deepEqual(res.body.connector_options, { mobile_money: null, voucher_partner: null, mail_payout: null, token_call: null });
    });

    it('lists the choices of the settings from the same table the API validates against', async () => {
      const res = await call('GET', '/admin/v1/protocol-mapping', tokens.viewer);
      assert.equal(res.status, 200, res.text);
      const names = res.body.optional_fields.map((f: { name: string }) => f.name);
      for (const name of ['payer_address2', 'payer_phone_country_code', 'card', 'card_expiration_date', 'brand', 'rrn', 'initiator', 'source', 'sequence', '3ds', 'browser', 'customer_ip', 'payment_method', 'checkout_payment_method', 'extended_data']) {
        assert.ok(names.includes(name), name);
      }
      assert.equal(names.filter((n: string) => n.startsWith('payer_')).length, 15, 'the fifteen payer attributes, each on its own');
      assert.deepEqual(res.body.optional_fields.find((f: { name: string }) => f.name === 'rrn').wire, ['RRN', 'ARN']);
      assert.deepEqual(res.body.link_targets, ['_blank', '_self', '_parent', '_top']);
      for (const name of names) {
        const ok = await call('PATCH', settingsOf(t.merchant), ADMIN, { callback_fields: [name], status_fields: [name] });
        assert.equal(ok.status, 200, `${name}: ${ok.text}`);
      }
    });

    it('stores exactly what the builders read', async () => {
      const m = await t.addMerchant();
      const res = await call('PATCH', settingsOf(m), tokens.operator, {
        callback_fields: ['payer_email', '3ds'], status_fields: ['card'], return_params: ['payment_method'], checkout_payment_method: true,
        payer_fields: { payer_zip: 'required', payer_city: 'required' }, override_link_target: '_parent',
        connector_options: {
          mobile_money: { fee_bearer: 'payer' },
          voucher_partner: { partner_ids: { EUR: 'P-1', USD: 'P-2' }, language: 'en-US' },
          mail_payout: { account_uuid: '2F1C7A4E-5B7D-4C1E-9A8B-3D2E1F0A9B8C' },
        },
      });
      assert.equal(res.status, 200, res.text);
      const stored = (await findMerchantById(t.store.db, t.keyring, m.id))!.settings;
      assert.deepEqual(stored, {
        callbackFields: ['payer_email', '3ds'], statusFields: ['card'], returnParams: ['payment_method'], checkoutPaymentMethod: true,
        requiredPayerFields: ['payer_city', 'payer_zip'], overrideLinkTarget: '_parent',
        connectorOptions: {
          mobileMoney: { feeBearer: 'payer' },
          voucherPartner: { partnerIds: { EUR: 'P-1', USD: 'P-2' }, language: 'en-US' },
          mailPayout: { accountUuid: '2f1c7a4e-5b7d-4c1e-9a8b-3d2e1f0a9b8c', feeCalculationMethod: 'account_level' },
        },
      });
      // A partial patch leaves the rest; null puts a setting back to its default.
      const next = await call('PATCH', settingsOf(m), ADMIN, { payer_fields: { payer_city: 'optional' }, override_link_target: null, connector_options: { mobile_money: null } });
      assert.deepEqual(next.body.callback_fields, ['payer_email', '3ds']);
      assert.equal(next.body.payer_fields.payer_city, 'optional');
      assert.equal(next.body.payer_fields.payer_zip, 'required');
      assert.equal(next.body.override_link_target, null);
      assert.equal(next.body.connector_options.mobile_money, null);
      assert.equal(next.body.connector_options.voucher_partner.language, 'en-US');
      const audit = await t.store.db.query<{ n: number }>("SELECT count(*)::int AS n FROM audit_log WHERE object_id = $1 AND action = 'merchant.settings.update'", [m.id]);
      assert.equal(audit[0]!.n, 2);
      // The entry holds what changed, not the whole settings.
      const [last] = await t.store.db.query<{ before: Record<string, unknown>; after: Record<string, unknown> }>(
        "SELECT before, after FROM audit_log WHERE object_id = $1 AND action = 'merchant.settings.update' ORDER BY at DESC, id DESC LIMIT 1", [m.id]);
      assert.deepEqual(Object.keys(last!.after).sort(), ['connector_options', 'override_link_target', 'payer_fields']);
      assert.deepEqual(Object.keys(last!.before).sort(), Object.keys(last!.after).sort());
      assert.equal(last!.after.override_link_target, null);
      // Sending values already in force records nothing.
      assert.equal((await call('PATCH', settingsOf(m), ADMIN, { callback_fields: ['payer_email', '3ds'] })).status, 200);
      const again = await t.store.db.query<{ n: number }>("SELECT count(*)::int AS n FROM audit_log WHERE object_id = $1 AND action = 'merchant.settings.update'", [m.id]);
      assert.equal(again[0]!.n, 2);
    });

    it('loses no change when operators patch at the same time (the merchant row is locked per change)', async () => {
      const m = await t.addMerchant();
      const fields = ['payer_first_name', 'payer_last_name', 'payer_address', 'payer_city', 'payer_zip', 'payer_country', 'payer_state', 'payer_phone'];
      const answers = await Promise.all(fields.map((f) => call('PATCH', settingsOf(m), tokens.operator, { payer_fields: { [f]: 'required' } })));
      for (const a of answers) assert.equal(a.status, 200, a.text);
      const required = (await findMerchantById(t.store.db, t.keyring, m.id))!.settings.requiredPayerFields ?? [];
      assert.deepEqual([...required].sort(), [...fields].sort());
    });

    it('seals the token-call private key and shows only its fingerprint', async () => {
      const m = await t.addMerchant();
      const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
      const pem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
      const body = pem.split('\n').filter((l) => l && !l.startsWith('-----')).join('');
      const res = await call('PATCH', settingsOf(m), ADMIN, { connector_options: { token_call: { private_key: body } } });
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.connector_options.token_call.private_key.set, true);
      assert.match(res.body.connector_options.token_call.private_key.fingerprint, /^sha256:[0-9a-f]{64}$/);
      assert.ok(!res.text.includes(body.slice(20, 60)));
      const [row] = await t.store.db.query<{ settings: string; secrets: string }>('SELECT settings::text AS settings, option_secrets::text AS secrets FROM merchants WHERE id = $1', [m.id]);
      for (const text of [row!.settings, row!.secrets]) assert.ok(!text.includes(body.slice(20, 60)), 'the key is not stored in clear');
      const config = await loadMerchantConfig(t.store.db, t.keyring, m.id);
      assert.equal(openOptionSecrets(t.gateway.ctx.keyring, config!).expose().token_call_private_key, pem);
      const [audit] = await t.store.db.query<{ after: string }>("SELECT after::text AS after FROM audit_log WHERE object_id = $1", [m.id]);
      assert.ok(!audit!.after.includes(body.slice(20, 60)));
      const bad = await call('PATCH', settingsOf(m), ADMIN, { connector_options: { token_call: { private_key: 'x'.repeat(60) } } });
      assert.deepEqual(d3Messages(bad), ['connector_options.token_call.private_key: This value is not a valid PEM private key.']);
    });

    it('refuses writes to support and viewer (403), reads need a token (401), unknown merchants 404', async () => {
      const m = await t.addMerchant();
      for (const role of ['support', 'viewer']) {
        const res = await call('PATCH', settingsOf(m), tokens[role], { checkout_payment_method: true });
        assert.equal(res.status, 403);
        d3Messages(res);
      }
      assert.equal((await call('GET', settingsOf(m), undefined)).status, 401);
      assert.equal((await call('GET', '/admin/v1/merchants/0193a0c4-0000-7000-8000-000000000000/settings', ADMIN)).status, 404);
      assert.equal((await call('PATCH', '/admin/v1/merchants/x/settings', ADMIN, { checkout_payment_method: true })).status, 404);
      assert.equal((await findMerchantById(t.store.db, t.keyring, m.id))!.settings.checkoutPaymentMethod, undefined);
    });

    it('answers malformed bodies with D3 400s, never a 5xx', async () => {
      const m = await t.addMerchant();
      const cases: [unknown, string][] = [
        [{ callback_fields: ['card_number'] }, 'callback_fields[0]'],
        [{ status_fields: ['payer_email', 'payer_email'] }, 'status_fields'],
        [{ return_params: ['hash'] }, 'return_params[0]'],
        [{ payer_fields: { payer_zip: 'mandatory' } }, 'payer_fields.payer_zip'],
        [{ payer_fields: { card_number: 'required' } }, 'payer_fields.card_number'],
        [{ override_link_target: '_window' }, 'override_link_target'],
        [{ checkout_payment_method: 'yes' }, 'checkout_payment_method'],
        [{ connector_options: { mail_payout: { account_uuid: 'nope' } } }, 'connector_options.mail_payout.account_uuid'],
        [{ connector_options: { mail_payout: { account_uuid: '2f1c7a4e-5b7d-4c1e-9a8b-3d2e1f0a9b8c', fee_calculation_method: 'per_day' } } }, 'connector_options.mail_payout.fee_calculation_method'],
        [{ connector_options: { voucher_partner: { partner_ids: { euro: 'P' }, language: 'en' } } }, 'connector_options.voucher_partner.partner_ids'],
        [{ connector_options: { mobile_money: { fee_bearer: 'bank' } } }, 'connector_options.mobile_money.fee_bearer'],
        [{ notification_url: 'https://x.example' }, 'notification_url'],
        [{}, 'request'],
        ['{', 'request: This value should be valid JSON.'],
      ];
      for (const [body, expected] of cases) {
        const res = await call('PATCH', settingsOf(m), ADMIN, body);
        assert.equal(res.status, 400, `${JSON.stringify(body)} -> ${res.status} ${res.text}`);
        const got = d3Messages(res);
        assert.ok(got.some((msg) => msg.startsWith(expected)), `${JSON.stringify(body)}: ${JSON.stringify(got)} lacks ${expected}`);
      }
      assert.deepEqual((await findMerchantById(t.store.db, t.keyring, m.id))!.settings, {});
    });

    it('puts a field switched on for callbacks in the next callback and not in status, and the reverse', async () => {
      const m = await t.addMerchant({ notificationUrl: listener.url });
      const patched = await call('PATCH', settingsOf(m), tokens.operator, { callback_fields: ['payer_email', 'customer_ip'], status_fields: ['payer_phone', 'payer_address2'] });
      assert.equal(patched.status, 200, patched.text);
      const seen = listener.received.length;
      const first = await sale(t, { payer_address2: 'Flat 2' }, m);
      assert.equal(first.body.status, 'SETTLED', first.text);
      const transId = first.body.trans_id as string;
      const callback = (await waitForCallback(listener, seen, transId)).fields;
      assert.equal(callback.payer_email, EMAIL);
      assert.equal(callback.customer_ip, '123.123.123.123');
      assert.equal(callback.payer_phone, undefined);
      const status = await followUp(t, 'GET_TRANS_STATUS', transId, {}, m);
      assert.equal(status.body.payer_phone, '199999999', status.text);
      assert.equal(status.body.payer_address2, 'Flat 2');
      assert.equal(status.body.payer_email, undefined);
      assert.equal(status.body.customer_ip, undefined);

      // The reverse, switched over the API: the next payment's callback and status follow at once.
      await call('PATCH', settingsOf(m), tokens.operator, { callback_fields: ['payer_phone'], status_fields: ['payer_email'] });
      const before = listener.received.length;
      const second = await sale(t, {}, m);
      const callback2 = (await waitForCallback(listener, before, second.body.trans_id)).fields;
      assert.equal(callback2.payer_phone, '199999999');
      assert.equal(callback2.payer_email, undefined);
      const status2 = await followUp(t, 'GET_TRANS_STATUS', second.body.trans_id, {}, m);
      assert.equal(status2.body.payer_email, EMAIL);
      assert.equal(status2.body.payer_phone, undefined);
    });

    it('replaces url_target with Override Link Target and appends the return parameters to the success URL', async () => {
      const m = await t.addMerchant();
      const plain = await payOnCheckout(t, m, { url_target: '_blank' });
      assert.equal(plain.target, '_blank', 'without an override the merchant\'s url_target applies');
      assert.equal(plain.url.searchParams.get('payment_method'), null);
      assert.deepEqual([...plain.url.searchParams.keys()].sort(), ['hash', 'order_id', 'payment_id', 'trans_id']);

      await call('PATCH', settingsOf(m), tokens.operator, { override_link_target: '_parent', return_params: ['payment_method', 'brand'] });
      const overridden = await payOnCheckout(t, m, { url_target: '_blank' });
      assert.equal(overridden.target, '_parent');
      assert.equal(overridden.url.origin + overridden.url.pathname, 'https://shop.example/success');
      assert.equal(overridden.url.searchParams.get('payment_method'), 'card');
      assert.equal(overridden.url.searchParams.get('brand'), 'payment_document_card', 'the document brand, as in callbacks');

      await call('PATCH', settingsOf(m), tokens.operator, { override_link_target: null, return_params: [], checkout_payment_method: true });
      const unset = await payOnCheckout(t, m, { url_target: '_self' });
      assert.equal(unset.target, '_self');
      assert.equal(unset.url.searchParams.get('payment_method'), null);
      assert.equal(unset.url.searchParams.get('checkout_payment_method'), 'card');
    });

    it('replaces an S2S CARD SALE\'s term_url_target with Override Link Target when 3-D Secure returns the payer', async () => {
      const m = await t.addMerchant();
      const returnTarget = async () => {
        const res = await sale(t, { card_exp_month: '05', term_url_3ds: 'https://shop.example/back', term_url_target: '_blank' }, m);
        assert.equal(res.body.result, 'REDIRECT', JSON.stringify(res.body));
        const acs = new URL(res.body.redirect_url as string);
        const done = await fetch(`${t.baseUrl}${acs.pathname}/complete`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'decision=submit&otp=1234' });
        const html = (await done.text()).replace(/&amp;/g, '&');
        const link = /<a[^>]*id="redirect-link"[^>]*>/.exec(html)?.[0] ?? '';
        assert.match(link, /href="https:\/\/shop\.example\/back"/, html.slice(0, 400));
        return /target="([^"]+)"/.exec(link)?.[1];
      };
      assert.equal(await returnTarget(), '_blank', 'without an override the request\'s term_url_target applies');
      await call('PATCH', settingsOf(m), tokens.operator, { override_link_target: '_top' });
      assert.equal(await returnTarget(), '_top');
    });

    it('enforces an S2S CARD payer field marked Required, and stops when it is Optional again', async () => {
      const m = await t.addMerchant();
      assert.equal((await sale(t, { payer_zip: undefined }, m)).body.result, 'SUCCESS');
      await call('PATCH', settingsOf(m), tokens.operator, { payer_fields: { payer_zip: 'required' } });
      const refused = await sale(t, { payer_zip: undefined }, m);
      assert.equal(errorOf(refused).error_message, 'Request data is invalid.');
      assert.deepEqual(messages(refused), ['payer_zip: This value should not be blank.']);
      await call('PATCH', settingsOf(m), tokens.operator, { payer_fields: { payer_zip: 'optional' } });
      assert.equal((await sale(t, { payer_zip: undefined }, m)).body.result, 'SUCCESS');
    });
  });
}

/** The settled callback of a payment, among those received after `from`. */
async function waitForCallback(listener: Listener, from: number, transId: string) {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const found = listener.received.slice(from).find((r) => r.fields.trans_id === transId && r.fields.status === 'SETTLED');
    if (found) return found;
    if (Date.now() > deadline) throw new Error(`no callback for ${transId}: ${JSON.stringify(listener.received.slice(from).map((r) => r.fields))}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
