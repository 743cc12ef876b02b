/**
 * Payer-facing hosted pages: pure render functions from view models (views.ts) to HTML strings.
 * No I/O, no clock. Every interpolated value is escaped (html.ts). The pages load one stylesheet and one
 * script from /assets/ and carry configuration only as JSON in <script type="application/json" id="config">,
 * so they run under CONTENT_SECURITY_POLICY (no inline script, no inline style, no inline handlers).
 * Every flow works with JavaScript off: plain form POSTs and links.
 */
import { STATE_REQUIRED_COUNTRIES } from '../domain/countries.ts';
import { attrs, html, jsonForScript, raw, type Raw } from './html.ts';
import type {
  AcsPageView,
  CheckoutPageView,
  MessagePageView,
  ProviderPageView,
  RedirectPageView,
} from './views.ts';

export { escapeHtml } from './html.ts';
export type * from './views.ts';

/**
 * Send with every hosted page. form-action is open because pages post to merchant, ACS and provider
 * addresses; frame-ancestors is open because merchants may embed the Checkout page.
 */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  'form-action *',
  'frame-ancestors *',
].join('; ');

/** Other headers the routes should send with a page (they hold session state: never cache). */
export const PAGE_HEADERS: Readonly<Record<string, string>> = {
  'content-type': 'text/html; charset=utf-8',
  'content-security-policy': CONTENT_SECURITY_POLICY,
  'cache-control': 'no-store',
  'referrer-policy': 'same-origin',
  'x-content-type-options': 'nosniff',
};

export const STYLESHEET_URL = '/assets/checkout.css';
export const SCRIPT_URL = '/assets/checkout.js';

// ---------------------------------------------------------------------------------------------------
// Icons (inline SVG, decorative)

const svg = (body: string, cls = 'icon'): Raw =>
  raw(
    `<svg class="${cls}" viewBox="0 0 24 24" width="24" height="24" aria-hidden="true" focusable="false" fill="none" stroke="currentColor" stroke-width="2" stroke-linecap="round" stroke-linejoin="round">${body}</svg>`,
  );

export const ICONS = {
  lock: () => svg('<rect x="4" y="11" width="16" height="10" rx="2"/><path d="M8 11V7a4 4 0 0 1 8 0v4"/>'),
  clock: () => svg('<circle cx="12" cy="12" r="9"/><path d="M12 7v5l3 2"/>'),
  card: () => svg('<rect x="2.5" y="5" width="19" height="14" rx="2"/><path d="M2.5 10h19M6.5 15h4"/>'),
  wallet: () => svg('<path d="M3 7h15a3 3 0 0 1 3 3v7a3 3 0 0 1-3 3H5a2 2 0 0 1-2-2z"/><path d="M3 7l12-3v3M16.5 13.5h.01"/>'),
  alert: () => svg('<circle cx="12" cy="12" r="9"/><path d="M12 7.5v5.5M12 16.5h.01"/>'),
  info: () => svg('<circle cx="12" cy="12" r="9"/><path d="M12 11v5.5M12 7.5h.01"/>'),
  check: () => svg('<circle cx="12" cy="12" r="9"/><path d="M8 12.5l2.8 2.8L16.5 9.5"/>'),
  shield: () => svg('<path d="M12 3l8 3v6c0 4.5-3.4 8.3-8 9-4.6-.7-8-4.5-8-9V6z"/><path d="M8.5 12l2.5 2.5 4.5-5"/>'),
  flask: () => svg('<path d="M9 3h6M10 3v6l-5.5 9.5A1.7 1.7 0 0 0 6 21h12a1.7 1.7 0 0 0 1.5-2.5L14 9V3"/><path d="M7.5 15h9"/>'),
  external: () => svg('<path d="M14 4h6v6M20 4l-9 9M18 14v5a1 1 0 0 1-1 1H5a1 1 0 0 1-1-1V7a1 1 0 0 1 1-1h5"/>'),
};

// ---------------------------------------------------------------------------------------------------
// Layout

export interface LayoutOptions {
  title: string;
  /** data-page of <body>: which part of the page scripts runs (checkout.js, or apm.js for the `apm-*` pages). */
  page: 'checkout' | 'acs' | 'provider' | 'redirect' | 'message' | `apm-${string}` | `sandbox-${string}`;
  main: Raw;
  config?: unknown;
  /** Extra class on <body>. */
  theme?: string;
  footer?: Raw;
  /** Further same-origin stylesheets and scripts (the alternative-method pages add theirs). */
  styles?: readonly string[];
  scripts?: readonly string[];
}

export function layout(o: LayoutOptions): string {
  const footer =
    o.footer ??
    html`<footer class="trust">${ICONS.lock()}<span>Secure payment page · Portcullis</span></footer>`;
  return `<!doctype html>${html`
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex, nofollow">
<meta name="referrer" content="same-origin">
<meta name="color-scheme" content="light">
<title>${o.title}</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="${STYLESHEET_URL}">
${(o.styles ?? []).map((href) => html`<link rel="stylesheet" href="${href}">`)}
<script src="${SCRIPT_URL}" defer></script>
${(o.scripts ?? []).map((src) => html`<script src="${src}" defer></script>`)}
</head>
<body${attrs({ class: ['pc', o.theme].filter(Boolean).join(' '), 'data-page': o.page })}>
<div class="shell">
${o.main}
${footer}
</div>
${o.config === undefined ? '' : html`<script type="application/json" id="config">${jsonForScript(o.config)}</script>`}
</body>
</html>
`.html}`;
}

// ---------------------------------------------------------------------------------------------------
// Form pieces

export interface FieldOptions {
  name: string;
  label: string;
  /** Input attributes (type, autocomplete, inputmode, maxlength, ...). */
  input: Record<string, string | number | boolean | undefined>;
  value?: string;
  hint?: string;
  error?: string;
  /** Marks the label "(optional)". */
  optional?: boolean;
  /** Markup after the input inside the input wrapper (e.g. the card brand badge). */
  adornment?: Raw;
  /** Extra attributes of the wrapper div. */
  wrap?: Record<string, string | boolean | undefined>;
  /** A <select> instead of an <input>. */
  options?: { value: string; label: string }[];
}

function describedBy(name: string, hint: boolean, error: boolean): string | undefined {
  const ids = [hint ? `${name}-hint` : '', error ? `${name}-error` : ''].filter(Boolean);
  return ids.length ? ids.join(' ') : undefined;
}

export function field(f: FieldOptions): Raw {
  const id = f.name;
  const common = {
    id,
    name: f.name,
    'aria-invalid': f.error ? 'true' : undefined,
    'aria-describedby': describedBy(id, f.hint !== undefined, f.error !== undefined),
    ...f.input,
  };
  const control = f.options
    ? html`<select${attrs(common)}>${f.options.map(
        (o) => html`<option${attrs({ value: o.value, selected: o.value === (f.value ?? '') })}>${o.label}</option>`,
      )}</select>`
    : html`<input${attrs({ ...common, value: f.value })}>`;
  const wrapClass = ['field', f.error ? 'field--invalid' : '', (f.wrap?.class as string) ?? ''].filter(Boolean).join(' ');
  return html`
<div${attrs({ ...f.wrap, class: wrapClass, 'data-field': f.name })}>
  <label for="${id}">${f.label}${f.optional ? html` <span class="optional">(optional)</span>` : ''}</label>
  <div class="control${f.options ? ' control--select' : ''}">${control}${f.adornment ?? ''}</div>
  ${f.hint !== undefined ? html`<p class="hint" id="${id}-hint">${f.hint}</p>` : ''}
  <p${attrs({ class: 'field-error', id: `${id}-error`, hidden: !f.error })}>${ICONS.alert()}<span>${f.error ?? ''}</span></p>
</div>`;
}

/** Error summary: the form-level message and one link per field error (plain text for fields not on the page). */
function errorSummary(errors: Record<string, string>, present: Set<string>, labels: Record<string, string>): Raw {
  const formError = errors[''];
  const fieldErrors = Object.entries(errors).filter(([k]) => k !== '');
  const hasAny = formError !== undefined || fieldErrors.length > 0;
  const title = formError ?? 'Check the highlighted details';
  return html`
<div${attrs({ class: 'error-summary', id: 'error-summary', role: 'alert', tabindex: '-1', 'aria-labelledby': 'error-summary-title', hidden: !hasAny })}>
  ${ICONS.alert()}
  <div>
    <h2 class="error-summary-title" id="error-summary-title">${title}</h2>
    ${formError !== undefined && fieldErrors.length === 0 ? html`<p class="error-summary-text">Check your details, or try another card or payment method.</p>` : ''}
    <ul class="error-summary-list">${fieldErrors.map(([k, msg]) =>
      present.has(k)
        ? html`<li><a href="#${k}" data-focus="${k}">${labels[k] ? html`<span class="visually-hidden">${labels[k]}: </span>` : ''}${msg}</a></li>`
        : html`<li>${msg}</li>`,
    )}</ul>
  </div>
</div>`;
}

function formatRemaining(ms: number): string {
  const total = Math.max(0, Math.ceil(ms / 1000));
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = total % 60;
  const pad = (n: number) => String(n).padStart(2, '0');
  return h > 0 ? `${h}:${pad(m)}:${pad(s)}` : `${pad(m)}:${pad(s)}`;
}

function countdown(expiresAt: string, now: string | undefined): Raw {
  const exp = Date.parse(expiresAt);
  const cur = now === undefined ? NaN : Date.parse(now);
  let text: Raw;
  if (Number.isFinite(exp) && Number.isFinite(cur)) {
    text = html`Session expires in <time id="countdown-time" datetime="${expiresAt}">${formatRemaining(exp - cur)}</time>`;
  } else if (Number.isFinite(exp)) {
    const d = new Date(exp);
    const hhmm = `${String(d.getUTCHours()).padStart(2, '0')}:${String(d.getUTCMinutes()).padStart(2, '0')} UTC`;
    text = html`Session expires at <time id="countdown-time" datetime="${expiresAt}">${hhmm}</time>`;
  } else {
    text = html`Session expires soon`;
  }
  return html`<p class="countdown" id="countdown">${ICONS.clock()}<span id="countdown-text">${text}</span></p>
<p class="visually-hidden" id="countdown-live" aria-live="polite"></p>`;
}

function sandboxBanner(): Raw {
  return html`<div class="sandbox" role="note">${ICONS.flask()}<p><strong>Sandbox:</strong> use 4111 1111 1111 1111, expiry month decides the outcome (01 success, 02 decline, 05 3-D Secure)</p></div>`;
}

export function initials(name: string): string {
  const letters = name
    .trim()
    .split(/\s+/)
    .map((w) => Array.from(w).find((c) => /[\p{L}\p{N}]/u.test(c)) ?? '')
    .filter(Boolean);
  return (letters[0] ?? '•').toUpperCase();
}

// ---------------------------------------------------------------------------------------------------
// Checkout

/** What happens after the payer continues with an alternative method, by its payer experience. */
const METHOD_INTROS: Readonly<Record<string, (label: string) => string>> = {
  redirect: (l) => `After you continue, you will complete the payment with ${l}.`,
  qr: () => 'After you continue, scan the QR code shown with your banking app.',
  details: () => 'After you continue, you will see the details to make the payment.',
  app_confirmation: (l) => `After you continue, confirm the payment in your ${l} app.`,
  extra_fields: (l) => `After you continue, ${l} may ask for a few details.`,
  otp: () => 'After you continue, we send a one-time code to your phone.',
  link: () => 'After you continue, we send you a link to pay.',
};

function methodIntro(m: { label: string; experience?: string }): string {
  return (METHOD_INTROS[m.experience ?? 'redirect'] ?? METHOD_INTROS.redirect!)(m.label);
}

/** Shown only without JavaScript (the script shows the field only for these countries). */
const STATE_HINT = 'Needed only for Australia, Canada, India, Japan and the United States.';

export function renderCheckoutPage(vm: CheckoutPageView): string {
  const errors = vm.errors ?? {};
  const present = new Set<string>();
  const labels: Record<string, string> = {};
  const multi = vm.methods.length > 1;
  const selected = vm.methods.some((m) => m.key === vm.selectedMethod) ? vm.selectedMethod : (vm.methods[0]?.key ?? 'card');
  const expiryOnly = vm.cardOnly?.expiryOnly === true;
  const amountText = `${vm.order.amount} ${vm.order.currency}`;
  const isPayout = vm.operation === 'credit';

  const track = (name: string, label: string) => {
    present.add(name);
    labels[name] = label;
  };
  /** With several methods, native `required` would block a non-card choice without JS; the server checks. */
  const req = (on: boolean) => (on && !multi ? true : undefined);

  // --- card panel
  const cardFields: Raw[] = [];
  if (expiryOnly) {
    track('card_expiry', 'Expiry date');
    cardFields.push(
      html`<p class="panel-intro">${vm.cardOnly?.maskedCard ? html`Card <strong class="mono">${vm.cardOnly.maskedCard}</strong>. ` : ''}To receive the payout, confirm the card's expiry date.</p>`,
      field({
        name: 'card_expiry',
        label: 'Expiry date',
        hint: 'MM/YY, as printed on the card',
        value: vm.values.expiry,
        error: errors.card_expiry,
        wrap: { class: 'field--short' },
        input: { type: 'text', inputmode: 'numeric', autocomplete: 'cc-exp', placeholder: 'MM/YY', maxlength: 7, required: req(true), pattern: '(0[1-9]|1[0-2]) ?/ ?[0-9]{2}', spellcheck: 'false', 'data-validate': 'expiry' },
      }),
    );
  } else {
    track('card_number', 'Card number');
    track('card_expiry', 'Expiry date');
    track('card_cvv', 'Security code');
    track('card_holder', 'Name on card');
    cardFields.push(
      field({
        name: 'card_number',
        label: 'Card number',
        error: errors.card_number,
        adornment: html`<span class="brand" id="card-brand" aria-hidden="true">${ICONS.card()}</span>`,
        input: { type: 'text', inputmode: 'numeric', autocomplete: 'cc-number', placeholder: '1234 1234 1234 1234', maxlength: 23, required: req(true), pattern: '[0-9 ]{13,23}', spellcheck: 'false', autocorrect: 'off', autocapitalize: 'off', 'data-validate': 'card-number' },
      }),
      html`<div class="row">${field({
        name: 'card_expiry',
        label: 'Expiry date',
        value: vm.values.expiry,
        error: errors.card_expiry,
        input: { type: 'text', inputmode: 'numeric', autocomplete: 'cc-exp', placeholder: 'MM/YY', maxlength: 7, required: req(true), pattern: '(0[1-9]|1[0-2]) ?/ ?[0-9]{2}', spellcheck: 'false', 'data-validate': 'expiry' },
      })}${field({
        name: 'card_cvv',
        label: 'Security code',
        error: errors.card_cvv,
        hint: '3 or 4 digits on the card',
        input: { type: 'text', inputmode: 'numeric', autocomplete: 'cc-csc', placeholder: 'CVC', maxlength: 4, required: req(true), pattern: '[0-9]{3,4}', spellcheck: 'false', 'data-validate': 'cvv' },
      })}</div>`,
      field({
        name: 'card_holder',
        label: 'Name on card',
        value: vm.values.cardHolder,
        error: errors.card_holder,
        input: { type: 'text', autocomplete: 'cc-name', placeholder: 'First and last name', maxlength: 32, required: req(true), spellcheck: 'false', autocapitalize: 'characters', 'data-validate': 'holder' },
      }),
    );
  }

  const methodPicker = multi
    ? html`<fieldset class="methods" id="method">
  <legend>Payment method</legend>
  <div class="method-list">${vm.methods.map(
    (m) => html`<label class="method-option">
      <input${attrs({ type: 'radio', name: 'method', value: m.key, checked: m.key === selected, 'aria-controls': `panel-${m.key}` })}>
      <span class="method-option-body">${m.key === 'card' ? ICONS.card() : ICONS.wallet()}<span>${m.label}</span></span>
    </label>`,
  )}</div>
  ${errors.method ? html`<p class="field-error" id="method-error">${ICONS.alert()}<span>${errors.method}</span></p>` : ''}
</fieldset>`
    : html`<input type="hidden" name="method" value="${selected}">
<h2 class="section-title">${selected === 'card' ? (expiryOnly ? 'Card expiry' : 'Card details') : (vm.methods[0]?.label ?? '')}</h2>`;
  if (multi) track('method', 'Payment method');

  // --- email
  let emailBlock: Raw = raw('');
  if (vm.email) {
    track('email', 'Email');
    emailBlock = field({
      name: 'email',
      label: 'Email',
      optional: !vm.email.required,
      value: vm.email.value,
      error: errors.email,
      input: { type: 'email', autocomplete: 'email', inputmode: 'email', maxlength: 255, required: vm.email.required || undefined, spellcheck: 'false', 'data-validate': 'email' },
    });
  }

  // --- billing
  let billingBlock: Raw = raw('');
  if (vm.billing.required) {
    const b = vm.billing.values;
    const country = (b.country ?? '').toUpperCase();
    for (const [k, l] of [['billing_country', 'Country'], ['billing_state', 'State or province'], ['billing_city', 'City'], ['billing_address', 'Address'], ['billing_zip', 'Postal code'], ['billing_phone', 'Phone']] as const) track(k, l);
    billingBlock = html`<fieldset class="billing">
  <legend class="section-title">Billing address</legend>
  ${field({
    name: 'billing_country',
    label: 'Country',
    value: country,
    error: errors.billing_country,
    options: [{ value: '', label: 'Select a country' }, ...vm.countries.map((c) => ({ value: c.code, label: c.name }))],
    input: { autocomplete: 'country', required: req(true), 'data-validate': 'country' },
  })}
  ${field({
    name: 'billing_state',
    label: 'State or province',
    value: b.state,
    error: errors.billing_state,
    hint: STATE_HINT,
    wrap: { 'data-state-field': true },
    input: { type: 'text', autocomplete: 'address-level1', maxlength: 32, spellcheck: 'false', 'data-validate': 'state' },
  })}
  ${field({
    name: 'billing_address',
    label: 'Address',
    value: b.address,
    error: errors.billing_address,
    input: { type: 'text', autocomplete: 'address-line1', maxlength: 32, minlength: 2, required: req(true), 'data-validate': 'address' },
  })}
  <div class="row">${field({
    name: 'billing_city',
    label: 'City',
    value: b.city,
    error: errors.billing_city,
    input: { type: 'text', autocomplete: 'address-level2', maxlength: 40, minlength: 2, required: req(true), 'data-validate': 'city' },
  })}${field({
    name: 'billing_zip',
    label: 'Postal code',
    value: b.zip,
    error: errors.billing_zip,
    input: { type: 'text', autocomplete: 'postal-code', maxlength: 10, minlength: 2, required: req(true), spellcheck: 'false', 'data-validate': 'zip' },
  })}</div>
  ${field({
    name: 'billing_phone',
    label: 'Phone',
    optional: true,
    value: b.phone,
    error: errors.billing_phone,
    input: { type: 'tel', autocomplete: 'tel', inputmode: 'tel', maxlength: 32, 'data-validate': 'phone' },
  })}
</fieldset>`;
  }

  // Billing belongs to the card: with several methods it sits in the card panel, so choosing another method
  // disables it with the card fields.
  const billingInCard = multi && vm.methods.some((m) => m.key === 'card');
  const panels = vm.methods.map((m) => {
    const active = m.key === selected;
    const body =
      m.key === 'card'
        ? html`${cardFields}${billingInCard ? billingBlock : ''}`
        : html`<p class="panel-intro">${ICONS.external()}<span>${methodIntro(m)}</span></p>`;
    return html`<div${attrs({
      class: `method-panel${active ? ' is-active' : ''}`,
      id: `panel-${m.key}`,
      'data-method': m.key,
      role: multi ? 'group' : undefined,
      'aria-label': multi ? m.label : undefined,
    })}>${body}</div>`;
  });

  const summaryLabel = isPayout ? 'Payout from' : 'Pay';
  const main = html`<main class="panel" id="main">
  ${vm.sandbox ? sandboxBanner() : ''}
  <section class="summary" aria-label="Order summary">
    <div class="merchant"><span class="merchant-badge" aria-hidden="true">${initials(vm.merchantName)}</span><h1 class="merchant-name">${vm.merchantName}</h1></div>
    <p class="amount-label">${summaryLabel}</p>
    <p class="amount"><span class="amount-value">${vm.order.amount}</span> <span class="amount-currency">${vm.order.currency}</span></p>
    ${vm.order.description ? html`<p class="description">${vm.order.description}</p>` : ''}
    <dl class="order-meta"><div><dt>Order</dt><dd>${vm.order.number}</dd></div></dl>
  </section>
  ${countdown(vm.expiresAt, vm.now)}
  <form class="pay-form" id="pay-form" method="post" action="${safeUrl(vm.actionUrl)}" accept-charset="utf-8" autocomplete="on" data-once>
    ${errorSummary(errors, present, labels)}
    ${emailBlock}
    ${methodPicker}
    <div class="method-panels">${panels}</div>
    ${billingInCard ? '' : billingBlock}
    <button type="submit" class="btn btn--primary btn--pay" id="pay-button">${ICONS.lock()}<span class="btn-label">${isPayout ? 'Receive' : 'Pay'} ${amountText}</span></button>
    ${vm.cancelUrl ? html`<p class="cancel"><a href="${safeUrl(vm.cancelUrl)}" id="cancel-link">Cancel and return to merchant</a></p>` : ''}
  </form>
</main>`;

  return layout({
    title: `${isPayout ? 'Receive' : 'Pay'} ${amountText} · ${vm.merchantName}`,
    page: 'checkout',
    main,
    config: {
      sessionId: vm.sessionId,
      expiresAt: vm.expiresAt,
      expiredUrl: safeUrl(vm.expiredUrl),
      serverNow: vm.now ?? null,
      stateCountries: STATE_REQUIRED_COUNTRIES,
      focusErrors: Object.keys(errors).length > 0,
      expiryOnly,
    },
  });
}

// ---------------------------------------------------------------------------------------------------
// 3-D Secure ACS (sandbox)

export function hiddenFields(fields: Record<string, string> | undefined): Raw[] {
  return Object.entries(fields ?? {}).map(([name, value]) => html`<input${attrs({ type: 'hidden', name, value })}>`);
}

export function renderAcsPage(vm: AcsPageView): string {
  const main = html`<main class="panel panel--bank" id="main">
  <header class="bank-header">
    <span class="bank-logo">${ICONS.shield()}</span>
    <div><p class="bank-title">Verified by Portcullis Sandbox ACS</p><p class="bank-subtitle">3-D Secure purchase authentication</p></div>
  </header>
  <h1 class="page-title">Confirm this purchase</h1>
  <dl class="details">
    <div><dt>Merchant</dt><dd>${vm.merchantName}</dd></div>
    <div><dt>Amount</dt><dd class="strong">${vm.amount} ${vm.currency}</dd></div>
    <div><dt>Card</dt><dd class="mono">${vm.maskedCard}</dd></div>
    <div><dt>Reference</dt><dd class="mono small">${vm.paymentId}</dd></div>
  </dl>
  <form method="post" action="${safeUrl(vm.actionUrl)}" accept-charset="utf-8" data-once>
    ${hiddenFields(vm.fields)}
    ${field({
      name: 'otp',
      label: 'One-time code',
      hint: vm.hint,
      error: vm.error,
      input: { type: 'text', inputmode: 'numeric', autocomplete: 'one-time-code', maxlength: 12, required: true, spellcheck: 'false', autofocus: true },
    })}
    <div class="actions">
      <button type="submit" class="btn btn--primary" name="decision" value="submit">Submit</button>
      <button type="submit" class="btn btn--secondary" name="decision" value="cancel" formnovalidate>Cancel</button>
    </div>
  </form>
</main>`;
  return layout({
    title: `Verify your payment · ${vm.merchantName}`,
    page: 'acs',
    theme: 'theme-bank',
    main,
    footer: html`<footer class="trust">${ICONS.shield()}<span>Sandbox issuer simulation · no real bank is contacted</span></footer>`,
  });
}

// ---------------------------------------------------------------------------------------------------
// Sandbox provider (redirect method)

/** The header of every sandbox provider screen: the provider's name and a sandbox badge. */
export function providerHeader(name: string): Raw {
  return html`<header class="provider-header">
    <span class="provider-logo">${ICONS.wallet()}</span>
    <div><p class="provider-name">${name}</p><p class="badge">Sandbox provider</p></div>
  </header>`;
}

export function renderProviderPage(vm: ProviderPageView): string {
  const main = html`<main class="panel panel--provider" id="main">
  ${providerHeader(vm.title)}
  <h1 class="page-title">Approve the payment</h1>
  <dl class="details">
    <div><dt>Merchant</dt><dd>${vm.merchantName}</dd></div>
    <div><dt>Amount</dt><dd class="strong">${vm.amount} ${vm.currency}</dd></div>
    ${vm.description ? html`<div><dt>Description</dt><dd>${vm.description}</dd></div>` : ''}
  </dl>
  <form method="post" action="${safeUrl(vm.actionUrl)}" accept-charset="utf-8" data-once>
    ${hiddenFields(vm.fields)}
    <div class="actions">
      <button type="submit" class="btn btn--primary" name="decision" value="approve">${vm.approveLabel}</button>
      <button type="submit" class="btn btn--secondary" name="decision" value="decline">${vm.declineLabel}</button>
    </div>
  </form>
</main>`;
  return layout({ title: `${vm.title} · ${vm.merchantName}`, page: 'provider', main });
}

// ---------------------------------------------------------------------------------------------------
// Redirect (to the merchant, an ACS or a provider)

/** GET targets carry their params in the query string (a GET form would drop the action's own query). */
export function urlWithParams(url: string, params: Record<string, string> | undefined): string {
  const entries = Object.entries(params ?? {});
  if (entries.length === 0) return url;
  const hashAt = url.indexOf('#');
  const base = hashAt >= 0 ? url.slice(0, hashAt) : url;
  const hash = hashAt >= 0 ? url.slice(hashAt) : '';
  const query = new URLSearchParams(entries).toString();
  const sep = base.includes('?') ? (base.endsWith('?') || base.endsWith('&') ? '' : '&') : '?';
  return `${base}${sep}${query}${hash}`;
}

/** Only http(s) and gateway-relative addresses are navigated to; anything else becomes about:blank. */
export function safeUrl(url: string): string {
  const t = url.trim();
  if (/^https?:\/\//i.test(t) || (t.startsWith('/') && !t.startsWith('//'))) return t;
  return 'about:blank';
}

export function renderRedirectPage(vm: RedirectPageView): string {
  const url = safeUrl(vm.url);
  const leaveRel = vm.target === '_blank' ? 'noopener' : undefined;
  const control =
    vm.method === 'POST'
      ? html`<form id="redirect-form" method="post" action="${url}" target="${vm.target}" accept-charset="utf-8">
    ${hiddenFields(vm.params)}
    <button type="submit" class="btn btn--primary" id="redirect-continue">Continue</button>
  </form>`
      : html`<p><a${attrs({ id: 'redirect-link', class: 'btn btn--primary', href: urlWithParams(url, vm.params), target: vm.target, rel: leaveRel })}>Continue</a></p>`;
  const main = html`<main class="panel panel--narrow panel--center" id="main">
  <div class="spinner" id="redirect-spinner" aria-hidden="true"></div>
  <h1 class="page-title">${vm.title}</h1>
  <p class="lead" id="redirect-message">${vm.message}</p>
  <p class="hint" id="redirect-nojs">If nothing happens, select Continue.</p>
  <p class="hint" id="redirect-window-note" hidden>${ICONS.external()} Select Continue to go on; it opens in a new window.</p>
  ${control}
</main>`;
  return layout({
    title: vm.title,
    page: 'redirect',
    main,
    config: { url, method: vm.method, target: vm.target },
  });
}

// ---------------------------------------------------------------------------------------------------
// Messages

export function renderMessagePage(vm: MessagePageView): string {
  const icon = vm.kind === 'success' ? ICONS.check() : vm.kind === 'error' ? ICONS.alert() : ICONS.info();
  const main = html`<main class="panel panel--narrow panel--center" id="main">
  <div class="status-icon status-icon--${vm.kind === 'success' ? 'success' : vm.kind === 'error' ? 'error' : 'info'}">${icon}</div>
  <h1 class="page-title">${vm.title}</h1>
  <p class="lead">${vm.message}</p>
  ${vm.link ? html`<p><a class="btn btn--primary" href="${safeUrl(vm.link.href)}">${vm.link.label}</a></p>` : ''}
</main>`;
  return layout({ title: vm.title, page: 'message', main });
}
