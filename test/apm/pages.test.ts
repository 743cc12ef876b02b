/**
 * The alternative-method pages as rendered HTML: every value escaped, no inline script or style (CSP), a label
 * for every control, the configuration only as JSON; and the fields form read on the server with the catalog's
 * rules, country-dependent fields only for their countries.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  renderApmCodePage, renderApmExpiredPage, renderApmFieldsPage, renderApmWaitPage, renderSandboxClaimPage, renderSandboxDevicePage, renderSandboxOutboxPage,
  type ApmFieldsPageView, type OrderView,
} from '../../src/web/apm-pages.ts';
import { fieldViews, parseFieldsForm } from '../../src/web/apm-form.ts';
import { pageFields } from '../../src/services/apm/methods.ts';
import { COUNTRIES_BY_NAME } from '../../src/domain/countries.ts';
import { ASSETS } from '../../src/web/assets.ts';
import { countryDependent, representative } from './support.ts';
import { findMethod } from '../../src/domain/methods/catalog.ts';

const EVIL = `"><script>alert(1)</script><b onmouseover=alert(2)>'\``;
const ORDER: OrderView = { merchantName: EVIL, number: EVIL, amount: EVIL, currency: EVIL, description: EVIL };

/** Our markup only: no injected element, handler, style or stray script. */
function assertInert(page: string): void {
  const doc = page.replace(/<script type="application\/json" id="config">[^<]*<\/script>/, '');
  assert.ok(!doc.includes('<script>alert'), 'script element injected');
  assert.ok(!doc.includes('<b '), 'element injected');
  for (const m of doc.matchAll(/<([a-z][a-z0-9]*)((?:\s[^<>]*)?)>/gi)) {
    const names = [...m[2]!.replace(/"[^"]*"/g, '').replace(/\/$/, '').matchAll(/([^\s=]+)/g)].map((n) => n[1]!.toLowerCase());
    for (const n of names) {
      assert.ok(!n.startsWith('on'), `event handler ${n} on <${m[1]}>`);
      assert.ok(n !== 'style', 'inline style');
    }
  }
  for (const m of doc.matchAll(/<script([^>]*)>/g)) {
    assert.match(m[1]!, /src="\/assets\/(checkout|apm)\.js"|type="application\/json"/, `unexpected script ${m[1]}`);
  }
}

function assertLabelled(doc: string): void {
  const labelled = new Set([...doc.matchAll(/<label for="([^"]+)"/g)].map((m) => m[1]));
  for (const m of doc.matchAll(/<(input|select|textarea)\s([^>]*)>/g)) {
    if (/type="hidden"/.test(m[2]!)) continue;
    const id = /id="([^"]+)"/.exec(m[2]!)?.[1];
    assert.ok(id && labelled.has(id), `no label for ${m[0]}`);
  }
}

const fieldsView = (over: Partial<ApmFieldsPageView> = {}): ApmFieldsPageView => ({
  order: ORDER, methodLabel: EVIL, actionUrl: `/pay/x/fields${EVIL}`, back: { href: `javascript:${EVIL}`, label: EVIL }, cancelUrl: '/pay/x/cancel',
  fields: [{ name: 'document_number', label: EVIL, kind: 'text', maxLength: 20 }, { name: 'billing_address.country', label: 'Country', kind: 'country' }, { name: 'pin', label: 'PIN', kind: 'text', requiredIn: ['BR', 'CL', 'CO'] }],
  values: { document_number: EVIL }, errors: { document_number: EVIL, '': EVIL }, countries: COUNTRIES_BY_NAME, sandbox: true, ...over,
});

describe('alternative-method pages', () => {
  it('escape every value and keep to the CSP on every page', () => {
    const wait = { order: ORDER, methodLabel: EVIL, statusUrl: `/pay/${EVIL}/status`, pageUrl: `/pay/${EVIL}`, now: EVIL, sentTo: EVIL, sandboxLinks: [{ href: `javascript:${EVIL}`, label: EVIL }] };
    const pages = [
      renderApmFieldsPage(fieldsView()),
      renderApmWaitPage({ ...wait, kind: 'qr', qr: { image: `data:image/svg+xml;base64,${EVIL}`, expiresAt: EVIL } }),
      renderApmWaitPage({ ...wait, kind: 'details', details: [{ label: EVIL, value: EVIL }] }),
      renderApmWaitPage({ ...wait, kind: 'app' }),
      renderApmWaitPage({ ...wait, kind: 'link', channel: 'sms' }),
      renderApmWaitPage({ ...wait, kind: 'processing', cancelUrl: EVIL }),
      renderApmCodePage({ order: ORDER, methodLabel: EVIL, actionUrl: EVIL, sentTo: EVIL, error: EVIL }),
      renderApmExpiredPage({ order: ORDER, methodLabel: EVIL, retry: { actionUrl: EVIL, method: EVIL }, leaveUrl: EVIL }),
      renderSandboxDevicePage({ appName: EVIL, heading: EVIL, merchantName: EVIL, amount: EVIL, currency: EVIL, description: EVIL, lines: [{ label: EVIL, value: EVIL }], actionUrl: EVIL, approveLabel: EVIL, declineLabel: EVIL }),
      renderSandboxOutboxPage({ recipient: EVIL, messages: [{ channel: 'email', recipient: EVIL, subject: EVIL, body: EVIL, link: `javascript:${EVIL}`, date: EVIL }] }),
    ];
    for (const page of pages) {
      assertInert(page);
      assertLabelled(page);
      assert.ok(!page.includes('href="javascript:'), 'javascript: link');
    }
  });

  it('load only the same-origin assets, which are served', () => {
    const page = renderApmFieldsPage(fieldsView());
    assert.match(page, /<script src="\/assets\/apm\.js" defer><\/script>/);
    assert.match(page, /<link rel="stylesheet" href="\/assets\/apm\.css">/);
    assert.ok(ASSETS['apm.js'] && ASSETS['apm.css']);
  });

  it('give the QR image a text alternative naming amount, merchant and order', () => {
    const order = { merchantName: 'Shop', number: 'ORD-7', amount: '€12.00', currency: 'EUR', description: 'Tickets' };
    const page = renderApmWaitPage({ kind: 'qr', order, methodLabel: 'IPS QR', statusUrl: '/pay/1/status', pageUrl: '/pay/1', now: '2030-01-01T00:00:00.000Z', qr: { image: 'data:image/svg+xml;base64,AAAA', expiresAt: '2030-01-01T00:01:00.000Z' } });
    assert.match(page, /alt="QR code to pay €12\.00 to Shop, order ORD-7"/);
    assert.match(page, /<time id="qr-time" datetime="2030-01-01T00:01:00\.000Z">00:01:00 UTC<\/time>/);
    assert.match(page, /role="status" aria-live="polite"/);
    const config = JSON.parse(/<script type="application\/json" id="config">([^<]*)<\/script>/.exec(page)![1]!);
    const { messages, ...rest } = config;
    assert.deepEqual(rest, { statusUrl: '/pay/1/status', pageUrl: '/pay/1', serverNow: '2030-01-01T00:00:00.000Z', expiresAt: '2030-01-01T00:01:00.000Z', pollMs: 2000 });
    assert.equal(messages['wait.qrExpiresIn'], 'The code expires in', 'the script gets its messages in the page language');
  });

  it('mark country-dependent fields for their countries and leave them to the server without native required', () => {
    const page = renderApmFieldsPage(fieldsView({ errors: {}, values: {} }));
    assert.match(page, /data-field="pin" data-required-in="BR CL CO"|data-required-in="BR CL CO"[^>]*data-field="pin"/);
    assert.match(page, /Needed only for Brazil, Chile, and Colombia\./, 'the list joined by Intl.ListFormat in the page language');
    assert.doesNotMatch(/<input[^>]*name="pin"[^>]*>/.exec(page)![0], /required/);
    assert.match(/<input[^>]*name="document_number"[^>]*>/.exec(page)![0], /required/);
  });
});

describe('the fields form', () => {
  const byCountry = countryDependent();
  const pin = byCountry.params.find((p) => p.requiredIn)!;

  it('asks the country with the PIN when the country is unknown, and the PIN only where it is required', () => {
    const unknown = pageFields(byCountry, {}, {});
    assert.deepEqual(unknown.map((f) => f.name), ['billing_address.country', pin.name]);
    assert.deepEqual(pageFields(byCountry, {}, { country: 'BR' }).map((f) => f.name), [pin.name]);
    assert.deepEqual(pageFields(byCountry, {}, { country: 'DE' }), []);
    assert.deepEqual(pageFields(byCountry, { [pin.name]: '123' }, { country: 'CO' }), []);
  });

  it("asks a payout's payee for its members, and holds an e-mail member to its own limits (mail payout: 2 to 60)", () => {
    const mail = findMethod('mail-payout')!;
    const sent = { payer_first_name: 'Jane', payee_last_name: 'Roe', SecurityQuestion: 'Name of my first pet?', SecurityQuestionAnswer: 'Rex' };
    const fields = pageFields(mail, sent, {}, 'credit');
    assert.deepEqual(fields.map((f) => f.name), ['payer_email'], 'no contact field beside the payout\'s own e-mail');
    assert.equal(parseFieldsForm({ payer_email: `${'a'.repeat(56)}@x.io` }, fields, undefined).ok, false);
    assert.deepEqual(parseFieldsForm({ payer_email: 'jane@x.io' }, fields, undefined), { ok: true, values: { payer_email: 'jane@x.io' } });
  });

  it('reads the PIN only for the countries that need it', () => {
    const fields = pageFields(byCountry, {}, {});
    assert.deepEqual(parseFieldsForm({ 'billing_address.country': 'de', [pin.name]: '' }, fields, undefined), { ok: true, values: { 'billing_address.country': 'DE' } });
    const missing = parseFieldsForm({ 'billing_address.country': 'CL' }, fields, undefined);
    assert.equal(missing.ok, false);
    assert.deepEqual(Object.keys(missing.ok ? {} : missing.errors), [pin.name]);
    assert.deepEqual(parseFieldsForm({ 'billing_address.country': 'XX' }, fields, undefined).ok, false);
    assert.deepEqual(parseFieldsForm({ 'billing_address.country': 'CO', [pin.name]: ' 987 ' }, fields, undefined), { ok: true, values: { 'billing_address.country': 'CO', [pin.name]: '987' } });
  });

  it('applies the catalog rules with messages for people, and refuses control characters', () => {
    const method = representative('extra_fields', 'checkout');
    const fields = pageFields(method, {}, {});
    const name = fields[0]!.name;
    const empty = parseFieldsForm({}, fields, undefined);
    assert.match(empty.ok ? '' : empty.errors[name]!, new RegExp(`^${fields[0]!.label}: enter a value$`), 'the label leads: never "Enter the your ..."');
    const nul = parseFieldsForm({ [name]: 'a\u0000b' }, fields, undefined);
    assert.match(nul.ok ? '' : nul.errors[name]!, /not allowed/);
    assert.deepEqual(fieldViews(fields).map((f) => f.name), fields.map((f) => f.name));
  });

  it('asks for the e-mail a link goes to, or the phone a code goes to, when the payer has none', () => {
    const link = representative('link', 'checkout');
    assert.deepEqual(pageFields(link, {}, {}).map((f) => f.name), ['customer.email']);
    assert.deepEqual(pageFields(link, {}, { email: 'a@b.cd' }), []);
    const otp = representative('otp', 'checkout', { pageFields: true });
    const asked = pageFields(otp, {}, {});
    assert.ok(asked.some((f) => /phone/i.test(f.name)));
    assert.equal(asked.filter((f) => /phone/i.test(f.name) && f.required).length, 1, 'one phone is required, not two');
  });
});

describe('the sandbox provider page behind a mail payout link', () => {
  it('escapes every value and labels the answer field', () => {
    const html = renderSandboxClaimPage({ merchantName: EVIL, amount: EVIL, description: EVIL, payeeName: EVIL, question: EVIL, actionUrl: '/sandbox/apm/ref', error: EVIL });
    assert.ok(!html.includes('<script>alert(1)'), 'escaped');
    assert.match(html, /<label[^>]*for="[^"]*answer[^"]*"/);
    assert.match(html, /name="answer"/);
  });
});
