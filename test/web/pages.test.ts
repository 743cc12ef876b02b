import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ASSETS, assetHeaders } from '../../src/web/assets.ts';
import { FRAME_SCRIPT, SDK_FILE } from '../../src/web/hosted-fields/frame.ts';
import { COUNTRIES, COUNTRIES_BY_NAME, STATE_REQUIRED_COUNTRIES, isCountryCode } from '../../src/domain/countries.ts';
import { attrs, escapeHtml, html, jsonForScript } from '../../src/web/html.ts';
import {
  CONTENT_SECURITY_POLICY,
  renderCheckoutPage,
  renderMessagePage,
  renderRedirectPage,
  urlWithParams,
} from '../../src/web/pages.ts';
import { renderAcsPage, renderProviderPage } from '../../src/sandbox/templates.ts';
import { BROWSER_FORM_FIELDS, CHECKOUT_FIELDS, type CheckoutPageView } from '../../src/web/views.ts';

/** The hidden browser details every card form posts (filled by the page's script). */
/** The hidden fields beside the card's: the browser's details and the payer's device id (risk engine). */
const BROWSER_NAMES = [...BROWSER_FORM_FIELDS.map((name) => `browser_${name}`), 'device_id'];

const EVIL = `"><script>alert(1)</script><img src=x onerror=alert(2)>'\``;

function checkoutView(over: Partial<CheckoutPageView> = {}): CheckoutPageView {
  return {
    sessionId: 'sess_1',
    merchantName: 'Acme Shop',
    order: { number: 'ORD-1', amount: '€12.50', currency: 'EUR', description: 'Two tickets' },
    operation: 'purchase',
    methods: [{ key: 'card', label: 'Card' }],
    selectedMethod: 'card',
    actionUrl: '/checkout/sess_1/pay',
    cancelUrl: '/checkout/sess_1/cancel',
    expiresAt: '2030-01-15T10:15:00.000Z',
    now: '2030-01-15T10:00:00.000Z',
    expiredUrl: '/checkout/sess_1/expired',
    billing: { required: true, values: {} },
    email: { required: true },
    values: {},
    errors: {},
    countries: [...COUNTRIES_BY_NAME],
    ...over,
  };
}

interface Tag {
  tag: string;
  attrs: Record<string, string | true>;
}

/** Start tags of the given element names with their attributes (our own markup: quoted attributes). */
function tags(doc: string, names: string[]): Tag[] {
  const out: Tag[] = [];
  const re = new RegExp(`<(${names.join('|')})(\\s[^>]*)?>`, 'gi');
  for (const m of doc.matchAll(re)) {
    const a: Record<string, string | true> = {};
    for (const am of (m[2] ?? '').matchAll(/([a-z][a-z0-9-]*)(?:="([^"]*)")?/gi)) a[am[1]!] = am[2] ?? true;
    out.push({ tag: m[1]!.toLowerCase(), attrs: a });
  }
  return out;
}

function decode(s: string): string {
  return s
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&#96;/g, '`')
    .replace(/&#61;/g, '=')
    .replace(/&amp;/g, '&');
}

/** No hostile markup got through: no injected elements, handlers or attribute break-outs. */
function assertInert(page: string): void {
  // The JSON config block is data (its `<` are \u003c escapes); check the markup around it.
  const doc = page.replace(/<script type="application\/json" id="config">[^<]*<\/script>/, '');
  assert.ok(!doc.includes('<script>alert'), 'script element injected');
  assert.ok(!doc.includes('<img'), 'img element injected');
  // Every start tag (values cannot hold a raw < or >) carries only attributes we write.
  for (const m of doc.matchAll(/<([a-z][a-z0-9]*)((?:\s[^<>]*)?)>/gi)) {
    const names = [...m[2]!.replace(/"[^"]*"/g, '').replace(/\/$/, '').matchAll(/([^\s=]+)/g)].map((n) => n[1]!.toLowerCase());
    for (const n of names) {
      assert.ok(!n.startsWith('on'), `event handler attribute ${n} on <${m[1]}>`);
      assert.ok(n !== 'style', 'inline style attribute (blocked by CSP)');
      assert.ok(n !== 'src' || m[1] === 'script', `src on <${m[1]}>`);
      assert.match(n, /^[a-z][a-z0-9-]*$/, `odd attribute name ${n} on <${m[1]}>`);
    }
  }
  // Only the asset script and the JSON config block.
  const scripts = tags(doc, ['script']);
  for (const s of scripts) {
    assert.ok(s.attrs.src === '/assets/checkout.js' || s.attrs.type === 'application/json', `unexpected script ${JSON.stringify(s.attrs)}`);
  }
}

function configOf(doc: string): Record<string, unknown> {
  const m = /<script type="application\/json" id="config">([^<]*)<\/script>/.exec(doc);
  assert.ok(m, 'config block');
  return JSON.parse(m[1]!) as Record<string, unknown>;
}

describe('escapeHtml and html helpers', () => {
  it('escapes the HTML-significant characters', () => {
    assert.equal(escapeHtml(`<a href="x" title='y'>&`), '&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;');
    assert.equal(escapeHtml(undefined), '');
    assert.equal(escapeHtml(0), '0');
  });
  it('html escapes interpolations and attrs escapes values', () => {
    assert.equal(html`<p>${EVIL}</p>`.html.includes('<script>'), false);
    assert.equal(attrs({ value: '"x"', disabled: true, hidden: false }).html, ' value="&quot;x&quot;" disabled');
    assert.throws(() => attrs({ 'onclick="x"': 'y' }));
  });
  it('jsonForScript cannot close the script element', () => {
    const out = jsonForScript({ a: '</script><script>alert(1)</script>', b: '\u2028&' }).html;
    assert.ok(!out.includes('<'));
    assert.ok(!out.includes('&'));
    assert.deepEqual(JSON.parse(out), { a: '</script><script>alert(1)</script>', b: '\u2028&' });
  });
});

describe('renderCheckoutPage', () => {
  it('escapes hostile values everywhere', () => {
    const doc = renderCheckoutPage(
      checkoutView({
        sessionId: EVIL,
        merchantName: EVIL,
        order: { number: EVIL, amount: EVIL, currency: EVIL, description: EVIL },
        methods: [
          { key: 'card', label: EVIL },
          { key: `x${EVIL}`, label: EVIL },
        ],
        selectedMethod: EVIL,
        actionUrl: `/pay${EVIL}`,
        cancelUrl: `/cancel${EVIL}`,
        expiresAt: EVIL,
        expiredUrl: `/expired</script><script>alert(1)</script>`,
        now: EVIL,
        billing: { required: true, values: { country: EVIL, state: EVIL, city: EVIL, address: EVIL, zip: EVIL, phone: EVIL } },
        email: { required: false, value: EVIL },
        values: { cardHolder: EVIL, expiry: EVIL },
        errors: { '': EVIL, card_number: EVIL, billing_city: EVIL, [EVIL]: EVIL },
        countries: [{ code: EVIL, name: EVIL }],
        sandbox: true,
      }),
    );
    assertInert(doc);
    assert.ok(doc.includes('&lt;script&gt;alert(1)&lt;/script&gt;'));
    assert.equal(configOf(doc).expiredUrl, '/expired</script><script>alert(1)</script>');
  });

  it('has a label for every visible input and select', () => {
    for (const view of [
      checkoutView(),
      checkoutView({ methods: [{ key: 'card', label: 'Card' }, { key: 'paypal', label: 'PayPal' }] }),
      checkoutView({ cardOnly: { expiryOnly: true }, operation: 'credit', billing: { required: false, values: {} } }),
    ]) {
      const doc = renderCheckoutPage(view);
      const labelled = new Set(tags(doc, ['label']).map((l) => l.attrs.for).filter(Boolean));
      const controls = tags(doc, ['input', 'select', 'textarea']).filter((t) => t.attrs.type !== 'hidden');
      assert.ok(controls.length > 0);
      for (const c of controls) {
        if (c.attrs.type === 'radio') {
          // radios are wrapped by their label: <label class="method-option"><input type="radio" ...>
          assert.match(doc, new RegExp(`<label class="method-option">\\s*<input[^>]*value="${String(c.attrs.value)}"`));
          continue;
        }
        assert.ok(labelled.has(c.attrs.id as string), `no label for ${String(c.attrs.id)}`);
        assert.equal(c.attrs.name, c.attrs.id, 'id matches the field name');
      }
    }
  });

  it('posts exactly the documented field names', () => {
    // Every field asked: the phone too (asked when a connector requires it, item 24 of issue 25).
    const doc = renderCheckoutPage(checkoutView({ phone: {} }));
    const names = tags(doc, ['input', 'select']).map((t) => t.attrs.name);
    assert.deepEqual([...new Set(names)].sort(), [...CHECKOUT_FIELDS].sort());
    const form = tags(doc, ['form'])[0]!;
    assert.equal(form.attrs.method, 'post');
    assert.equal(form.attrs.action, '/checkout/sess_1/pay');
  });

  it('uses the payment autocomplete tokens and numeric keyboards', () => {
    const doc = renderCheckoutPage(checkoutView());
    const byName = new Map(tags(doc, ['input', 'select']).map((t) => [t.attrs.name, t.attrs]));
    assert.equal(byName.get('card_number')!.autocomplete, 'cc-number');
    assert.equal(byName.get('card_number')!.inputmode, 'numeric');
    assert.equal(byName.get('card_expiry')!.autocomplete, 'cc-exp');
    assert.equal(byName.get('card_cvv')!.autocomplete, 'cc-csc');
    assert.equal(byName.get('card_holder')!.autocomplete, 'cc-name');
    assert.equal(byName.get('card_holder')!.maxlength, '32');
    assert.equal(byName.get('email')!.type, 'email');
    assert.equal(byName.get('billing_country')!.autocomplete, 'country');
  });

  it('never echoes a card number or CVV, but re-displays name and expiry', () => {
    const view = checkoutView({ values: { cardHolder: 'Jane Doe', expiry: '12/30' } });
    // a careless caller passing the posted form through must not leak it either
    (view.values as Record<string, string>).cardNumber = '4111111111111111';
    (view.values as Record<string, string>).cvv = '737';
    const doc = renderCheckoutPage(view);
    const byName = new Map(tags(doc, ['input']).map((t) => [t.attrs.name, t.attrs]));
    assert.equal(byName.get('card_number')!.value, undefined);
    assert.equal(byName.get('card_cvv')!.value, undefined);
    assert.equal(byName.get('card_holder')!.value, 'Jane Doe');
    assert.equal(byName.get('card_expiry')!.value, '12/30');
    assert.ok(!doc.includes('4111111111111111'));
    assert.ok(!doc.includes('737'));
  });

  it('shows the state field with a hint, never natively required, and gives the script the country list', () => {
    const doc = renderCheckoutPage(checkoutView({ billing: { required: true, values: { country: 'US', state: 'NY' } } }));
    const state = tags(doc, ['input']).find((t) => t.attrs.name === 'billing_state')!;
    assert.equal(state.attrs.required, undefined);
    assert.equal(state.attrs.value, 'NY');
    assert.match(doc, /<div data-state-field class="field"[^>]*>/);
    assert.ok(doc.includes('Needed only for Australia, Canada, India, Japan and the United States.'));
    assert.deepEqual(configOf(doc).stateCountries, ['CA', 'US', 'JP', 'AU', 'IN']);
    const us = tags(doc, ['option']).find((o) => o.attrs.value === 'US')!;
    assert.equal(us.attrs.selected, true);
  });

  it('hides billing and email when not asked for', () => {
    const doc = renderCheckoutPage(checkoutView({ billing: { required: false, values: { country: 'US' } }, email: undefined }));
    const names = tags(doc, ['input', 'select']).map((t) => t.attrs.name);
    assert.deepEqual(names.sort(), ['card_cvv', 'card_expiry', 'card_holder', 'card_number', 'method', ...BROWSER_NAMES].sort());
  });

  it('marks errors inline with aria-invalid and aria-describedby, and lists them in a summary', () => {
    const doc = renderCheckoutPage(
      checkoutView({ errors: { '': 'Declined by processing', card_cvv: 'The security code is 3 or 4 digits', billing_district: 'Odd field' } }),
    );
    const cvv = tags(doc, ['input']).find((t) => t.attrs.name === 'card_cvv')!;
    assert.equal(cvv.attrs['aria-invalid'], 'true');
    assert.equal(cvv.attrs['aria-describedby'], 'card_cvv-hint card_cvv-error');
    assert.match(doc, /<p class="field-error" id="card_cvv-error">.*<span>The security code is 3 or 4 digits<\/span><\/p>/);
    assert.match(doc, /<h2 class="error-summary-title" id="error-summary-title">Declined by processing<\/h2>/);
    assert.match(doc, /<a href="#card_cvv" data-focus="card_cvv">/);
    assert.match(doc, /<li>Odd field<\/li>/, 'errors of fields not on the page are listed without a link');
    const summary = tags(doc, ['div']).find((t) => t.attrs.id === 'error-summary')!;
    assert.equal(summary.attrs.role, 'alert');
    assert.equal(summary.attrs.tabindex, '-1');
    assert.equal(summary.attrs.hidden, undefined);
    assert.equal(configOf(doc).focusErrors, true);
    const ok = renderCheckoutPage(checkoutView());
    assert.equal(tags(ok, ['div']).find((t) => t.attrs.id === 'error-summary')!.attrs.hidden, true);
    assert.ok(!tags(ok, ['input']).some((t) => t.attrs['aria-invalid']));
  });

  it('shows the order summary, pay button with amount, countdown and cancel link', () => {
    const doc = renderCheckoutPage(checkoutView({ sandbox: true }));
    assert.match(doc, /<h1 class="merchant-name">Acme Shop<\/h1>/);
    assert.match(doc, /<span class="amount-value">€12.50<\/span>/);
    assert.ok(doc.includes('Two tickets'));
    assert.ok(doc.includes('<dd>ORD-1</dd>'));
    assert.match(doc, /<span class="btn-label">Pay €12.50<\/span>/);
    assert.match(doc, /Session expires in <time id="countdown-time" datetime="2030-01-15T10:15:00.000Z">15:00<\/time>/);
    assert.match(doc, /<button type="submit" form="cancel-form" class="link-button" id="cancel-link">Cancel and return to merchant<\/button>/);
    assert.match(doc, /<form id="cancel-form" method="post" action="\/checkout\/sess_1\/cancel" hidden><\/form>/, 'cancelling posts');
    assert.ok(doc.includes('use \u20664111 1111 1111 1111\u2069, expiry month decides the outcome (01 success, 02 decline, 05 3-D Secure)'));
    assert.ok(!renderCheckoutPage(checkoutView()).includes('class="sandbox"'));
    const cfg = configOf(doc);
    assert.equal(cfg.expiresAt, '2030-01-15T10:15:00.000Z');
    assert.equal(cfg.expiredUrl, '/checkout/sess_1/expired');
    assert.equal(cfg.serverNow, '2030-01-15T10:00:00.000Z');
  });

  it('countdown without a server clock shows the expiry time, and hours for long sessions', () => {
    const noNow = renderCheckoutPage(checkoutView({ now: undefined }));
    assert.match(noNow, /Session expires at <time id="countdown-time" datetime="[^"]+">10:15 UTC<\/time>/);
    const long = renderCheckoutPage(checkoutView({ expiresAt: '2030-01-15T12:00:05.000Z' }));
    assert.match(long, />2:00:05<\/time>/);
  });

  it('renders a method picker for several methods without native required on card fields', () => {
    const doc = renderCheckoutPage(
      checkoutView({ methods: [{ key: 'card', label: 'Card' }, { key: 'paypal', label: 'PayPal' }], selectedMethod: 'paypal', email: undefined, billing: { required: false, values: {} } }),
    );
    const radios = tags(doc, ['input']).filter((t) => t.attrs.type === 'radio');
    assert.deepEqual(radios.map((r) => [r.attrs.name, r.attrs.value, r.attrs.checked ?? false]), [
      ['method', 'card', false],
      ['method', 'paypal', true],
    ]);
    assert.match(doc, /<fieldset class="methods" id="method">\s*<legend>Payment method<\/legend>/);
    assert.ok(!tags(doc, ['input']).some((t) => t.attrs.required));
    assert.match(doc, /<div class="method-panel is-active" id="panel-paypal" data-method="paypal"/);
  });

  it('asks only for MM/YY on a payout with a card token', () => {
    const doc = renderCheckoutPage(
      checkoutView({ operation: 'credit', cardOnly: { expiryOnly: true, maskedCard: '411111******1111' }, billing: { required: false, values: {} }, email: undefined }),
    );
    const names = tags(doc, ['input', 'select']).map((t) => t.attrs.name).sort();
    assert.deepEqual(names, ['card_expiry', 'method', ...BROWSER_NAMES].sort());
    assert.ok(doc.includes('411111******1111'));
    assert.match(doc, /<span class="btn-label">Receive €12.50<\/span>/);
    assert.equal(configOf(doc).expiryOnly, true);
  });

  it('refuses script URLs in links and form targets', () => {
    const doc = renderCheckoutPage(checkoutView({ actionUrl: 'javascript:alert(1)', cancelUrl: ' JavaScript:alert(1)', expiredUrl: 'data:text/html,x' }));
    assert.ok(!/javascript:/i.test(doc));
    assert.equal(configOf(doc).expiredUrl, 'about:blank');
  });
});

describe('renderAcsPage', () => {
  it('renders the challenge form with the one-time code, decisions and hidden fields, escaped', () => {
    const doc = renderAcsPage({
      paymentId: EVIL,
      merchantName: EVIL,
      amount: EVIL,
      currency: EVIL,
      maskedCard: EVIL,
      actionUrl: `/acs${EVIL}`,
      fields: { MD: EVIL, PaReq: 'abc', TermUrl: 'https://gw.example/term?a=1&b=2' },
      hint: EVIL,
    });
    assertInert(doc);
    assert.ok(doc.includes('Verified by Portcullis Sandbox ACS'));
    const inputs = tags(doc, ['input']);
    const otp = inputs.find((t) => t.attrs.name === 'otp')!;
    assert.equal(otp.attrs.autocomplete, 'one-time-code');
    assert.ok(tags(doc, ['label']).some((l) => l.attrs.for === 'otp'));
    const hidden = Object.fromEntries(inputs.filter((t) => t.attrs.type === 'hidden').map((t) => [t.attrs.name, decode(t.attrs.value as string)]));
    assert.deepEqual(hidden, { MD: EVIL, PaReq: 'abc', TermUrl: 'https://gw.example/term?a=1&b=2' });
    const buttons = tags(doc, ['button']).map((b) => [b.attrs.name, b.attrs.value, b.attrs.formnovalidate ?? false]);
    assert.deepEqual(buttons, [
      ['decision', 'submit', false],
      ['decision', 'cancel', true],
    ]);
  });
});

describe('renderProviderPage', () => {
  it('renders approve and decline decisions with hidden fields, escaped', () => {
    const doc = renderProviderPage({
      title: EVIL,
      merchantName: EVIL,
      amount: '10.00',
      currency: 'USD',
      description: EVIL,
      actionUrl: '/provider/p1',
      fields: { [EVIL]: EVIL },
      approveLabel: EVIL,
      declineLabel: 'Decline',
    });
    assertInert(doc);
    const buttons = tags(doc, ['button']).map((b) => [b.attrs.name, b.attrs.value]);
    assert.deepEqual(buttons, [
      ['decision', 'approve'],
      ['decision', 'decline'],
    ]);
    const hidden = tags(doc, ['input']).filter((t) => t.attrs.type === 'hidden');
    assert.equal(decode(hidden[0]!.attrs.name as string), EVIL);
    assert.equal(tags(doc, ['form'])[0]!.attrs.action, '/provider/p1');
  });
});

describe('renderRedirectPage', () => {
  it('POST: a form with the params as hidden fields, in the given target, with a Continue button', () => {
    const doc = renderRedirectPage({
      url: 'https://merchant.example/return?x=1',
      method: 'POST',
      params: { payment_id: 'p1', order_id: EVIL, hash: 'abc' },
      target: '_top',
      title: EVIL,
      message: EVIL,
    });
    assertInert(doc);
    const form = tags(doc, ['form'])[0]!;
    assert.equal(form.attrs.action, 'https://merchant.example/return?x=1');
    assert.equal(form.attrs.method, 'post');
    assert.equal(form.attrs.target, '_top');
    const hidden = Object.fromEntries(tags(doc, ['input']).map((t) => [t.attrs.name, decode(t.attrs.value as string)]));
    assert.deepEqual(hidden, { payment_id: 'p1', order_id: EVIL, hash: 'abc' });
    assert.match(doc, /<button type="submit" class="btn btn--primary" id="redirect-continue">Continue<\/button>/);
    assert.deepEqual(configOf(doc), { url: 'https://merchant.example/return?x=1', method: 'POST', target: '_top', delaySeconds: 0, messages: { 'receipt.returning': 'Returning you to the merchant in {seconds} seconds.' } });
  });

  it('GET: a Continue link with the params in the query string', () => {
    const doc = renderRedirectPage({
      url: 'https://merchant.example/ok?lang=en#top',
      method: 'GET',
      params: { payment_id: 'p 1', order_id: '<o&1>' },
      target: '_blank',
      title: 'Returning',
      message: 'Taking you back',
    });
    const link = tags(doc, ['a']).find((a) => a.attrs.id === 'redirect-link')!;
    assert.equal(decode(link.attrs.href as string), 'https://merchant.example/ok?lang=en&payment_id=p+1&order_id=%3Co%261%3E#top');
    assert.equal(link.attrs.target, '_blank');
    assert.equal(link.attrs.rel, 'noopener');
    assert.ok(doc.includes('opens in a new window'));
  });

  it('never navigates to script URLs', () => {
    const doc = renderRedirectPage({ url: 'javascript:alert(1)', method: 'GET', target: '_self', title: 't', message: 'm' });
    assert.ok(!/javascript:/i.test(doc));
    assert.equal(urlWithParams('/a', {}), '/a');
    assert.equal(urlWithParams('/a?', { b: '1' }), '/a?b=1');
  });
});

describe('renderMessagePage', () => {
  it('renders title, message, kind and an optional link, escaped', () => {
    const doc = renderMessagePage({ title: 'This payment link has already been used', message: EVIL, kind: 'error', link: { href: 'https://merchant.example/', label: EVIL } });
    assertInert(doc);
    assert.match(doc, /<h1 class="page-title">This payment link has already been used<\/h1>/);
    assert.ok(doc.includes('status-icon--error'));
    assert.match(doc, /<a class="btn btn--primary" href="https:\/\/merchant.example\/">/);
    const plain = renderMessagePage({ title: 'Session not found', message: 'Check the link.', kind: 'info' });
    assert.ok(plain.includes('status-icon--info'));
    assert.ok(!plain.includes('btn--primary'));
    assert.match(plain, /<title>Session not found<\/title>/);
  });
});

describe('content security policy and assets', () => {
  it('allows only own resources, any form target and any embedding', () => {
    assert.match(CONTENT_SECURITY_POLICY, /default-src 'self'/);
    assert.match(CONTENT_SECURITY_POLICY, /script-src 'self'(;|$)/);
    assert.match(CONTENT_SECURITY_POLICY, /form-action \*/);
    assert.match(CONTENT_SECURITY_POLICY, /frame-ancestors \*/);
    assert.ok(!CONTENT_SECURITY_POLICY.includes('unsafe-inline'));
  });

  it('loads the stylesheet and the script with content types and etags', () => {
    const css = ASSETS['checkout.css']!;
    const js = ASSETS['checkout.js']!;
    assert.equal(css.contentType, 'text/css; charset=utf-8');
    assert.equal(js.contentType, 'text/javascript; charset=utf-8');
    assert.ok(css.body.length > 1000 && js.body.length > 1000);
    assert.match(css.etag, /^"[A-Za-z0-9_-]+"$/);
    assert.notEqual(css.etag, js.etag);
    assert.equal(assetHeaders(js).etag, js.etag);
    // no external resources
    assert.ok(!/https?:\/\/(?!www\.w3\.org\/2000\/svg)/.test(css.body.toString()));
    assert.ok(!/\beval\(|new Function\(/.test(js.body.toString()));
  });

  it('serves each script with the parts it shares (web/shared/) in place of their names', () => {
    const served = { 'checkout.js': ASSETS['checkout.js']!, 'hosted-fields.js': SDK_FILE, 'field.js': FRAME_SCRIPT };
    for (const [name, file] of Object.entries(served)) {
      const text = file.body.toString();
      assert.ok(!text.includes('@shared'), `${name}: a shared part left unresolved`);
      assert.equal(text.match(/function deviceId\(\)/g)?.length, 1, `${name}: the device id once`);
      assert.doesNotThrow(() => new Function(text), `${name}: parses`);
    }
    assert.equal(SDK_FILE.body.toString().match(/function randomId\(\)/g)?.length, 1);
    assert.equal(FRAME_SCRIPT.body.toString().match(/function randomId\(\)/g)?.length, 1);
  });
});

describe('countries', () => {
  it('holds the ISO 3166-1 alpha-2 list', () => {
    assert.equal(COUNTRIES.length, 249);
    assert.equal(new Set(COUNTRIES.map((c) => c.code)).size, 249);
    assert.ok(COUNTRIES.every((c) => /^[A-Z]{2}$/.test(c.code) && c.name.length > 1));
    assert.ok(isCountryCode('US') && isCountryCode('DE') && !isCountryCode('XX') && !isCountryCode('us'));
    assert.deepEqual([...STATE_REQUIRED_COUNTRIES], ['CA', 'US', 'JP', 'AU', 'IN']);
    assert.equal(COUNTRIES_BY_NAME[0]!.name, 'Afghanistan');
  });
});
