/**
 * Issue 17, items 4 to 7, through the merchant channels on both stores: a signed Checkout session paid on the hosted
 * page (form POST with the browser's headers), callbacks to a real listener (bytes and hash checked), status lookups.
 * Every optional field of "Callback and status-response fields" on and off, in callbacks and in status answers;
 * RRN and ARN empty in callbacks and omitted in status answers when missing; the recurring consent; the browser
 * details of the hosted page; payer_address2 and payer_phone_country_code; brand payment_document_crypto; accountId.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { storeKinds } from '../support/stores.ts';
import { startTestGateway, type TestGateway, type TestMerchant } from '../support/gateway.ts';
import { checkoutHash } from '../support/merchant.ts';
import { startListener, type Listener, type Received } from '../s2s-card/support.ts';
import { newSchedule } from '../recurring/support.ts';
import { OPTIONAL_FIELD_NAMES } from '../../src/domain/protocol-mapping.ts';
import { getPayment } from '../../src/store/payments-repo.ts';

const BILLING = {
  country: 'GB', state: 'England', city: 'London', address: '1 Main Street', zip: 'SW1A1AA', phone: '+441234567', district: 'Westminster',
  house_number: '12', address2: 'Flat 2', phone_country_code: '44',
};
const CUSTOMER = { name: 'John Doe', email: 'success@gmail.com', birth_date: '1990-01-02', ip: '203.0.113.7' };
const HEADERS = { 'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) SpecFields/1.0', accept: 'text/html,application/xhtml+xml;q=0.9', 'accept-language': 'en-GB,en;q=0.8' };
const BROWSER_FORM = { browser_javascript_enabled: 'true', browser_color_depth: '24', browser_screen_height: '1080', browser_screen_width: '1920', browser_timezone_offset: '-60', browser_java_enabled: 'false', browser_language: 'en-GB', browser_platform: 'Linux x86_64' };

let orders = 0;
function sessionBody(m: TestMerchant, extra: Record<string, unknown> = {}) {
  const order = { number: `SF-${process.pid}-${Date.now()}-${++orders}`, amount: '10.00', currency: 'USD', description: 'Spec fields' };
  return {
    merchant_key: m.key, operation: 'purchase', methods: ['card'], order, req_token: true,
    success_url: 'https://shop.example/success', cancel_url: 'https://shop.example/cancel',
    customer: CUSTOMER, billing_address: BILLING,
    hash: checkoutHash(m.password, order.number, order.amount, order.currency, order.description),
    ...extra,
  };
}

async function openSession(t: TestGateway, m: TestMerchant, extra: Record<string, unknown> = {}): Promise<{ path: string; order: string }> {
  const body = sessionBody(m, extra);
  const res = await t.postJson('/api/v1/session', body);
  assert.equal(res.status, 200, res.text);
  return { path: new URL(res.body.redirect_url).pathname, order: body.order.number };
}

/** Pays a session on the hosted page as a browser would post it (the form's fields and the browser's headers). */
async function payOnPage(t: TestGateway, path: string, fields: Record<string, string> = {}, expiry = '01/38'): Promise<number> {
  const res = await fetch(`${t.baseUrl}${path}/pay`, {
    method: 'POST', redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...HEADERS },
    body: new URLSearchParams({ method: 'card', card_number: '4111 1111 1111 1111', card_expiry: expiry, card_cvv: '123', card_holder: 'John Doe', ...BROWSER_FORM, ...fields }).toString(),
  });
  await res.text();
  return res.status;
}

async function statusByOrder(t: TestGateway, m: TestMerchant, order: string): Promise<Record<string, any>> {
  const res = await t.postJson('/api/v1/payment/status', { merchant_key: m.key, order_id: order, hash: checkoutHash(m.password, order) });
  assert.equal(res.status, 200, res.text);
  return res.body;
}

async function callbackOf(l: Listener, order: string, type = 'sale'): Promise<Received> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const found = l.received.find((r) => r.fields.order_number === order && r.fields.type === type);
    if (found) return found;
    if (Date.now() > deadline) throw new Error(`no ${type} callback for ${order}: ${JSON.stringify(l.received.map((r) => r.fields))}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** The callback hash a merchant recomputes from the callback's own fields. */
function assertSigned(cb: Record<string, string>, m: TestMerchant): void {
  assert.equal(cb.hash, checkoutHash(m.password, cb.id!, cb.order_number!, cb.order_amount!, cb.order_currency!, cb.order_description!));
}

const digits = (n: number) => new RegExp(`^[0-9]{${n}}$`);
const UUIDISH = /^[0-9A-Za-z_-]{8,}$/;

/**
 * Each Protocol Mapping setting: the wire keys it puts in a callback (value rule) and in a status answer. `always`:
 * keys a Checkout card callback carries whatever the setting (customer_ip, the card facts).
 */
const FIELDS: readonly { setting: string; wire: Record<string, string | RegExp>; status?: Record<string, string | RegExp>; always?: readonly string[] }[] = [
  { setting: 'payment_method', wire: { payment_method: 'card' } },
  { setting: 'checkout_payment_method', wire: { checkout_payment_method: 'card' } },
  { setting: 'brand', wire: { brand: 'payment_document_card' } },
  { setting: 'card', wire: { card: '411111****1111', card_expiration_date: '01/2038' }, always: ['card', 'card_expiration_date'] },
  { setting: 'card_expiration_date', wire: { card_expiration_date: '01/2038' }, always: ['card_expiration_date'] },
  { setting: 'rrn', wire: { RRN: digits(12), ARN: digits(23) } },
  { setting: 'initiator', wire: { initiator: 'cardholder' } },
  { setting: 'source', wire: { source: 'ecommerce' } },
  { setting: 'sequence', wire: { sequence: 'first' } },
  { setting: '3ds', wire: { threeDSServerTransID: UUIDISH, dsTransID: UUIDISH, acsTransID: UUIDISH, transStatus: 'Y', eci: '05', protocolVersion: '2.2.0', authenticationFlow: 'Frictionless' } },
  {
    setting: 'browser',
    wire: {
      browser_javascript_enabled: 'true', browser_color_depth: '24', browser_screen_height: '1080', browser_screen_width: '1920', browser_timezone_offset: '-60',
      browser_java_enabled: 'false', browser_language: 'en-GB', browser_platform: 'Linux x86_64', browser_user_agent: HEADERS['user-agent'], browser_accept_headers: HEADERS.accept,
    },
  },
  { setting: 'customer_ip', wire: { customer_ip: CUSTOMER.ip }, always: ['customer_ip'] },
  { setting: 'extended_data', wire: { 'extended_data[approval_code]': digits(6), 'extended_data[gateway_id]': /^sbx_/, 'extended_data[rrn]': digits(12) }, status: {} },
  { setting: 'payer_first_name', wire: { payer_first_name: 'John' } },
  { setting: 'payer_last_name', wire: { payer_last_name: 'Doe' } },
  { setting: 'payer_birth_date', wire: { payer_birth_date: CUSTOMER.birth_date } },
  { setting: 'payer_address', wire: { payer_address: BILLING.address } },
  { setting: 'payer_address2', wire: { payer_address2: BILLING.address2 } },
  { setting: 'payer_house_number', wire: { payer_house_number: BILLING.house_number } },
  { setting: 'payer_phone_country_code', wire: { payer_phone_country_code: BILLING.phone_country_code } },
  { setting: 'payer_country', wire: { payer_country: BILLING.country } },
  { setting: 'payer_state', wire: { payer_state: BILLING.state } },
  { setting: 'payer_city', wire: { payer_city: BILLING.city } },
  { setting: 'payer_district', wire: { payer_district: BILLING.district } },
  { setting: 'payer_zip', wire: { payer_zip: BILLING.zip } },
  { setting: 'payer_email', wire: { payer_email: CUSTOMER.email } },
  { setting: 'payer_phone', wire: { payer_phone: BILLING.phone } },
  { setting: 'payer_ip', wire: { payer_ip: CUSTOMER.ip } },
  // The ledger's fee (issue 27; no schedule here: 0.00, the whole 10.00 owed); test/money/fee-fields.test.ts prices one.
  { setting: 'fee', wire: { fee: '0.00', net_amount: '10.00' } },
];

/** The S2S-only settings (flat extended fields) have their own test in test/s2s-card/spec-fields.test.ts. */
const S2S_ONLY = new Set(['approval_code', 'gateway_id', 'merchant_name', 'connector_name']);

function assertValue(where: string, key: string, actual: unknown, expected: string | RegExp): void {
  if (typeof expected === 'string') assert.equal(actual, expected, `${where} ${key}`);
  else assert.match(String(actual), expected, `${where} ${key}`);
}

/** The status answer's value of a wire key (extended_data[x] is the nested member x). */
function statusValue(body: Record<string, any>, key: string): unknown {
  const nested = /^([a-z_]+)\[([a-z_]+)\]$/.exec(key);
  return nested ? body[nested[1]!]?.[nested[2]!] : body[key];
}

for (const { kind, skip } of await storeKinds()) {
  describe(`Checkout callback and status fields (${kind})`, { skip }, () => {
    let t: TestGateway;
    let listener: Listener;
    before(async () => {
      listener = await startListener();
      t = await startTestGateway(kind, { workers: true });
    });
    after(async () => {
      await t?.close();
      await listener?.close();
    });

    it('covers every optional field of the Protocol Mapping table', () => {
      const covered = new Set(FIELDS.map((f) => f.setting));
      assert.deepEqual(OPTIONAL_FIELD_NAMES.filter((n) => !covered.has(n) && !S2S_ONLY.has(n)), []);
    });

    it('puts each optional field in the callback only when on for callbacks, in the status answer only when on for status', async () => {
      const all = FIELDS.map((f) => f.setting);
      const inCallbacks = await t.addMerchant({ notificationUrl: listener.url, settings: { callbackFields: all } });
      const inStatus = await t.addMerchant({ notificationUrl: listener.url, settings: { statusFields: all } });
      const none = await t.addMerchant({ notificationUrl: listener.url });
      const paid: Record<string, { cb: Record<string, string>; status: Record<string, any> }> = {};
      for (const [name, m] of [['callbacks', inCallbacks], ['status', inStatus], ['none', none]] as const) {
        const { path, order } = await openSession(t, m);
        assert.equal(await payOnPage(t, path), 200);
        const cb = (await callbackOf(listener, order)).fields;
        assert.equal(cb.order_status, 'settled', JSON.stringify(cb));
        assertSigned(cb, m);
        paid[name] = { cb, status: await statusByOrder(t, m, order) };
      }
      for (const f of FIELDS) {
        for (const [key, expected] of Object.entries(f.wire)) {
          assertValue(`callback with ${f.setting} on:`, key, paid.callbacks!.cb[key], expected);
          if (!f.always?.includes(key)) {
            assert.equal(paid.none!.cb[key], undefined, `callback with ${f.setting} off: ${key}`);
            assert.equal(paid.status!.cb[key], undefined, `callback with ${f.setting} on for status only: ${key}`);
          }
          assert.equal(statusValue(paid.callbacks!.status, key), undefined, `status with ${f.setting} on for callbacks only: ${key}`);
          assert.equal(statusValue(paid.none!.status, key), undefined, `status with ${f.setting} off: ${key}`);
        }
        for (const [key, expected] of Object.entries(f.status ?? f.wire)) assertValue(`status with ${f.setting} on:`, key, statusValue(paid.status!.status, key), expected);
      }
      // The extended_data block of a status answer is JSON: the acquirer's references, nested.
      assert.match(String(paid.status!.status.extended_data?.approval_code), digits(6));
    });

    it('sends RRN and ARN empty in callbacks and omits them from status answers when missing; the capture brings the ARN', async () => {
      const m = await t.addMerchant({ notificationUrl: listener.url, settings: { callbackFields: ['rrn'], statusFields: ['rrn'] } });
      const { path, order } = await openSession(t, m, { auth: true });
      assert.equal(await payOnPage(t, path), 200);
      const held = await callbackOf(listener, order);
      assert.equal(held.fields.order_status, 'pending');
      assert.match(held.fields.RRN!, digits(12));
      assert.equal(held.fields.ARN, '', 'a held authorization has no ARN: sent empty');
      assert.match(held.raw, /(^|&)ARN=(&|$)/, 'the empty ARN is on the wire');
      const before = await statusByOrder(t, m, order);
      assert.equal(before.status, 'pending');
      assert.ok(!('ARN' in before), 'omitted from the status answer when missing');
      assert.match(before.RRN, digits(12));

      const capture = await t.postJson('/api/v1/payment/capture', { merchant_key: m.key, payment_id: before.payment_id, amount: '10.00', hash: checkoutHash(m.password, before.payment_id, '10.00') });
      assert.equal(capture.status, 200, capture.text);
      const captured = await callbackOf(listener, order, 'capture');
      assert.match(captured.fields.ARN!, digits(23));
      assert.match((await statusByOrder(t, m, order)).ARN, digits(23));
    });

    it('takes the browser details from the hosted page: without its script only the headers and javascript_enabled=false', async () => {
      const m = await t.addMerchant({ notificationUrl: listener.url, settings: { callbackFields: ['browser'], statusFields: ['browser'] } });
      const { path, order } = await openSession(t, m);
      // A browser without JavaScript posts the hidden fields as rendered: javascript_enabled false, the rest empty.
      const empty = Object.fromEntries(Object.keys(BROWSER_FORM).map((k) => [k, k === 'browser_javascript_enabled' ? 'false' : '']));
      assert.equal(await payOnPage(t, path, { ...empty, browser_color_depth: '<b>' }), 200);
      const cb = (await callbackOf(listener, order)).fields;
      const browser = Object.fromEntries(Object.entries(cb).filter(([k]) => k.startsWith('browser_')));
      assert.deepEqual(browser, { browser_javascript_enabled: 'false', browser_user_agent: HEADERS['user-agent'], browser_accept_headers: HEADERS.accept, browser_language: 'en-GB' });
      const status = await statusByOrder(t, m, order);
      assert.equal(status.browser_user_agent, HEADERS['user-agent']);
      assert.equal(status.browser_color_depth, undefined, 'a value of the wrong shape is dropped');
    });

    it('renders the hidden browser fields on the page, javascript_enabled false until the script runs', async () => {
      const { path } = await openSession(t, t.merchant);
      const html = await (await fetch(`${t.baseUrl}${path}`)).text();
      assert.match(html, /<input type="hidden" name="browser_javascript_enabled" value="false">/);
      for (const name of ['color_depth', 'screen_height', 'screen_width', 'timezone_offset', 'java_enabled', 'language', 'platform']) assert.match(html, new RegExp(`name="browser_${name}" value=""`));
      assert.ok(!html.includes('name="recurring_consent"'), 'no consent checkbox without recurring_consent_required');
    });

    describe('recurring consent', () => {
      let scheduleId: string;
      let m: TestMerchant;
      before(async () => {
        m = await t.addMerchant({ notificationUrl: listener.url });
        scheduleId = await newSchedule(t, { interval_length: '1', interval_unit: 'month', payments_count: '3' }, m);
      });
      const consentSession = () => ({ req_token: false, recurring_init: true, schedule_id: scheduleId, recurring_consent_required: true });

      it('shows an unticked consent checkbox naming the merchant', async () => {
        const { path } = await openSession(t, m, consentSession());
        const html = await (await fetch(`${t.baseUrl}${path}`)).text();
        const box = /<input[^>]*name="recurring_consent"[^>]*>/.exec(html)?.[0];
        assert.ok(box, 'the consent checkbox is on the page');
        assert.match(box, /type="checkbox"/);
        assert.ok(!/checked/.test(box), 'never ticked for the payer');
        assert.match(html, /<label for="recurring_consent">I agree that Test Shop may charge this card again/);
      });

      it('ticked: the chain starts and the callback and status carry consent_id and consent_state active', async () => {
        const { path, order } = await openSession(t, m, consentSession());
        assert.equal(await payOnPage(t, path, { recurring_consent: 'yes' }), 200);
        const cb = await callbackOf(listener, order);
        assertSigned(cb.fields, m);
        assert.equal(cb.fields.consent_state, 'active');
        assert.match(cb.fields.consent_id!, /^[0-9a-f-]{20,}$/);
        assert.ok(cb.fields.recurring_token, 'the chain started');
        assert.equal(cb.fields.schedule_id, scheduleId);
        assert.ok(!cb.raw.includes('extended_data'), cb.raw);
        const status = await statusByOrder(t, m, order);
        assert.equal(status.consent_id, cb.fields.consent_id);
        assert.equal(status.consent_state, 'active');
      });

      it('declined: a one-time payment without recurring_token, and extended_data[consent_state]=ignored on the wire', async () => {
        const { path, order } = await openSession(t, m, consentSession());
        assert.equal(await payOnPage(t, path), 200);
        const cb = await callbackOf(listener, order);
        assertSigned(cb.fields, m);
        assert.equal(cb.fields.order_status, 'settled');
        // Bracket keys as the platform writes them (D7), the brackets themselves not escaped.
        assert.match(cb.raw, /(^|&)extended_data\[consent_state\]=ignored(&|$)/);
        for (const key of ['recurring_token', 'recurring_init_trans_id', 'schedule_id', 'consent_id', 'consent_state', 'card_token']) assert.equal(cb.fields[key], undefined, key);
        const status = await statusByOrder(t, m, order);
        assert.deepEqual(status.extended_data, { consent_state: 'ignored' });
        assert.equal(status.recurring_token, undefined);
        const rows = await t.store.db.query<{ n: string }>('SELECT count(*)::text AS n FROM schedule_subscriptions WHERE schedule_id = $1', [scheduleId]);
        assert.equal(rows[0]!.n, '1', 'only the consented chain is on the schedule');
      });

      it('needs schedule_id, and is refused on hosted payment fields (their page is the merchant\'s)', async () => {
        const without = await t.postJson('/api/v1/session', sessionBody(m, { recurring_init: true, recurring_consent_required: true }));
        assert.equal(without.status, 400, without.text);
        assert.deepEqual(without.body.errors.map((e: { error_message: string }) => e.error_message), ['schedule_id: This value should not be blank.']);
        const hpf = await t.postJson('/api/v1/session/token', { ...sessionBody(m, consentSession()), return_url: 'https://shop.example/back' });
        assert.equal(hpf.status, 400, hpf.text);
        assert.deepEqual(hpf.body.errors.map((e: { error_message: string }) => e.error_message), ['recurring_consent_required: This value is not correct.']);
        const wrong = await t.postJson('/api/v1/session', sessionBody(m, { ...consentSession(), recurring_consent_required: 'maybe' }));
        assert.equal(wrong.status, 400);
      });
    });

    it('brand payment_document_crypto for a crypto method; the top-level accountId is stored and forwarded to it', async () => {
      const m = await t.addMerchant({ notificationUrl: listener.url, settings: { statusFields: ['brand', 'payment_method'] } });
      const { path, order } = await openSession(t, m, { methods: ['awcc', 'card'], parameters: { awcc: { crypto_type: 'USDT' } }, accountId: 'ACC-777', req_token: false });
      const res = await fetch(`${t.baseUrl}${path}/pay`, { method: 'POST', redirect: 'manual', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ method: 'awcc', email: 'success@gmail.com' }).toString() });
      assert.equal(res.status, 303, await res.text());
      const status = await statusByOrder(t, m, order);
      assert.equal(status.payment_method, 'awcc');
      assert.equal(status.brand, 'payment_document_crypto');
      const payment = await getPayment(t.store.db, status.payment_id);
      assert.equal(payment!.details.accountId, 'ACC-777', 'stored with the payment');
      assert.equal((payment!.details.apm as { params: Record<string, unknown> }).params.accountId, 'ACC-777', 'in the parameters the provider got');

      // parameters.awcc.accountId wins over the top-level one.
      const own = await openSession(t, m, { methods: ['awcc'], parameters: { awcc: { crypto_type: 'USDT', accountId: 'OWN-1' } }, accountId: 'ACC-777', req_token: false });
      await (await fetch(`${t.baseUrl}${own.path}/pay`, { method: 'POST', redirect: 'manual', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ method: 'awcc', email: 'success@gmail.com' }).toString() })).text();
      const second = await getPayment(t.store.db, (await statusByOrder(t, m, own.order)).payment_id);
      assert.equal((second!.details.apm as { params: Record<string, unknown> }).params.accountId, 'OWN-1');

      // A card payment of the same merchant stays payment_document_card.
      const card = await openSession(t, m, { req_token: false });
      assert.equal(await payOnPage(t, card.path), 200);
      assert.equal((await statusByOrder(t, m, card.order)).brand, 'payment_document_card');
    });
  });
}
