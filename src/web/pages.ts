/**
 * Payer-facing hosted pages: pure render functions from view models (views.ts) to HTML strings.
 * No I/O, no clock. Every interpolated value is escaped (html.ts). The pages load one stylesheet and one
 * script from /assets/ and carry configuration only as JSON in <script type="application/json" id="config">,
 * so they run under CONTENT_SECURITY_POLICY (no inline script, no inline style, no inline handlers).
 * Every flow works with JavaScript off: plain form POSTs and links.
 */
import { STATE_REQUIRED_COUNTRIES } from '../domain/countries.ts';
import { isPayout } from '../domain/operations.ts';
import { attrs, documentStart, html, jsonForScript, raw, type Raw } from './html.ts';
import { EN, LOCALES, clientMessages, type Locale, type Translator } from './i18n.ts';
import { escapeHtml } from './html.ts';
import { FORM_MESSAGE_KEYS } from './checkout-form.ts';
import { METHOD_GROUPS, type MethodGroup } from './method-groups.ts';
import { walletMethod } from '../domain/wallets/wallet-flow.ts';
import type {
  CheckoutPageView,
  MessagePageView,
  ReceiptView,
  RedirectPageView,
  WalletButtonView,
} from './views.ts';
import { BROWSER_FORM_FIELDS, RECURRING_CONSENT_FIELD } from './views.ts';

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

/**
 * Google's script and frames, allowed only on a live merchant's page with a Google Pay button: Google Pay's
 * PaymentsClient cannot run from our origin. Apple Pay needs nothing (ApplePaySession is Safari's own API).
 * Sandbox pages (and the tests) never load anything from outside: their sheet is the gateway's simulator.
 */
const GOOGLE_PAY_ORIGINS = { script: 'https://pay.google.com', frame: 'https://pay.google.com', img: 'https://www.gstatic.com' };

export function walletContentSecurityPolicy(wallets: readonly WalletButtonView[]): string {
  if (!wallets.some((w) => w.wallet === 'googlepay' && w.mode === 'live')) return CONTENT_SECURITY_POLICY;
  return CONTENT_SECURITY_POLICY
    .replace("script-src 'self'", `script-src 'self' ${GOOGLE_PAY_ORIGINS.script}`)
    .replace("img-src 'self' data:", `img-src 'self' data: ${GOOGLE_PAY_ORIGINS.img}`)
    .replace("connect-src 'self'", `connect-src 'self' ${GOOGLE_PAY_ORIGINS.script}`)
    .replace("object-src 'none'", `frame-src ${GOOGLE_PAY_ORIGINS.frame}; object-src 'none'`);
}

export const WALLET_SCRIPT_URL = '/assets/wallet.js';

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
  bank: () => svg('<path d="M3 10h18L12 4z"/><path d="M5 10v8M9.5 10v8M14.5 10v8M19 10v8M3 20h18"/>'),
  cash: () => svg('<rect x="2.5" y="6" width="19" height="12" rx="2"/><circle cx="12" cy="12" r="2.5"/><path d="M6 9.5v5M18 9.5v5"/>'),
  crypto: () => svg('<circle cx="12" cy="12" r="9"/><path d="M9.5 7.5h4a2 2 0 0 1 0 4.5h-4zM9.5 12h4.5a2 2 0 0 1 0 4.5H9.5zM9.5 7.5v9M11 6v1.5M11 16.5V18"/>'),
  external: () => svg('<path d="M14 4h6v6M20 4l-9 9M18 14v5a1 1 0 0 1-1 1H5a1 1 0 0 1-1-1V7a1 1 0 0 1 1-1h5"/>'),
};

// ---------------------------------------------------------------------------------------------------
// Layout

export interface LayoutOptions {
  title: string;
  /** data-page of <body>: which part of the page scripts runs (checkout.js, apm.js for the `apm-*` pages, threeds2.js). */
  page: 'checkout' | 'acs' | 'provider' | 'redirect' | 'message' | 'threeds2' | `apm-${string}` | `sandbox-${string}`;
  main: Raw;
  config?: unknown;
  /** Extra class on <body>. */
  theme?: string;
  footer?: Raw;
  /** Further same-origin stylesheets and scripts (the alternative-method pages add theirs). */
  styles?: readonly string[];
  scripts?: readonly string[];
  /** The page's language (lang, dir and the footer); English by default. */
  t?: Translator;
  /** Extra markup in <head> (a receipt's no-JavaScript refresh). */
  head?: Raw;
}

export function layout(o: LayoutOptions): string {
  const t = o.t ?? EN;
  const footer =
    o.footer ??
    html`<footer class="trust">${ICONS.lock()}<span>${t.t('footer.secure')}</span></footer>`;
  return `${documentStart(t)}${html`
<meta name="referrer" content="same-origin">
<meta name="color-scheme" content="light">
<title>${o.title}</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="${STYLESHEET_URL}">
${(o.styles ?? []).map((href) => html`<link rel="stylesheet" href="${href}">`)}
<script src="${SCRIPT_URL}" defer></script>
${(o.scripts ?? []).map((src) => html`<script src="${src}" defer></script>`)}
${o.head ?? ''}
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
  /** The control's id when it is not the name (a second control of the same name on the page). */
  id?: string;
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
  /** The language of the "(optional)" mark. */
  t?: Translator;
}

function describedBy(name: string, hint: boolean, error: boolean): string | undefined {
  const ids = [hint ? `${name}-hint` : '', error ? `${name}-error` : ''].filter(Boolean);
  return ids.length ? ids.join(' ') : undefined;
}

export function field(f: FieldOptions): Raw {
  const id = f.id ?? f.name;
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
  <label for="${id}">${f.label}${f.optional ? html` <span class="optional">${(f.t ?? EN).t('field.optional')}</span>` : ''}</label>
  <div class="control${f.options ? ' control--select' : ''}">${control}${f.adornment ?? ''}</div>
  ${f.hint !== undefined ? html`<p class="hint" id="${id}-hint">${f.hint}</p>` : ''}
  <p${attrs({ class: 'field-error', id: `${id}-error`, hidden: !f.error })}>${ICONS.alert()}<span>${f.error ?? ''}</span></p>
</div>`;
}

/** The summary title for a number of field errors ("Check the 2 highlighted details"). */
export function summaryTitle(t: Translator, count: number): string {
  return count <= 1 ? t.t('summary.one') : t.t('summary.many', { count });
}

/** Error summary: the form-level message and one link per field error (plain text for fields not on the page). */
function errorSummary(t: Translator, errors: Record<string, string>, present: Set<string>, labels: Record<string, string>, decline?: CheckoutPageView['decline']): Raw {
  const formError = errors[''] ?? decline?.message;
  const fieldErrors = Object.entries(errors).filter(([k]) => k !== '');
  const hasAny = formError !== undefined || fieldErrors.length > 0;
  const title = formError ?? summaryTitle(t, fieldErrors.length);
  const followUp = decline
    ? `${t.t('decline.tryAgainHint')} ${decline.triesLeft === 1 ? t.t('decline.lastTry') : t.t('decline.triesLeft', { count: decline.triesLeft })}`
    : t.t('summary.formHint');
  return html`
<div${attrs({ class: 'error-summary', id: 'error-summary', role: 'alert', tabindex: '-1', 'aria-labelledby': 'error-summary-title', hidden: !hasAny, 'data-decline': decline ? true : undefined })}>
  ${ICONS.alert()}
  <div>
    <h2 class="error-summary-title" id="error-summary-title">${title}</h2>
    ${formError !== undefined && fieldErrors.length === 0 ? html`<p class="error-summary-text">${followUp}</p>` : ''}
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

function countdown(t: Translator, expiresAt: string, now: string | undefined): Raw {
  const exp = Date.parse(expiresAt);
  const cur = now === undefined ? NaN : Date.parse(now);
  let text: Raw;
  if (Number.isFinite(exp) && Number.isFinite(cur)) {
    text = html`${t.t('countdown.in')} <time id="countdown-time" datetime="${expiresAt}">${formatRemaining(exp - cur)}</time>`;
  } else if (Number.isFinite(exp)) {
    const d = new Date(exp);
    const hhmm = `${String(d.getUTCHours()).padStart(2, '0')}:${String(d.getUTCMinutes()).padStart(2, '0')} UTC`;
    text = html`${t.t('countdown.at')} <time id="countdown-time" datetime="${expiresAt}">${hhmm}</time>`;
  } else {
    text = html`${t.t('countdown.soon')}`;
  }
  return html`<p class="countdown" id="countdown">${ICONS.clock()}<span id="countdown-text">${text}</span></p>
<div class="expiry-warning" id="expiry-warning" role="alertdialog" aria-labelledby="expiry-warning-title" aria-describedby="expiry-warning-text" hidden>
  ${ICONS.clock()}<div><p class="expiry-warning-title" id="expiry-warning-title">${t.t('expiry.warnTitle')}</p>
  <p id="expiry-warning-text">${t.t('expiry.warnText')}</p>
  <button type="button" class="btn btn--secondary" id="expiry-warning-ok">${t.t('expiry.warnOk')}</button></div>
</div>
<p class="visually-hidden" id="countdown-live" aria-live="polite"></p>`;
}

/** The sandbox test card, isolated left to right (U+2066..U+2069) so that a right-to-left page keeps its groups in order. */
const SANDBOX_CARD = '\u20664111 1111 1111 1111\u2069';

function sandboxBanner(t: Translator): Raw {
  return html`<div class="sandbox" role="note">${ICONS.flask()}<p><strong>${t.t('sandbox.label')}</strong> ${t.t('sandbox.cards', { card: SANDBOX_CARD })}</p></div>`;
}

export function initials(name: string): string {
  const letters = name
    .trim()
    .split(/\s+/)
    .map((w) => Array.from(w).find((c) => /[\p{L}\p{N}]/u.test(c)) ?? '')
    .filter(Boolean);
  return (letters[0] ?? '•').toUpperCase();
}

/** The links that switch the page's language (GET with ?lang=, remembered in a cookie). */
export function languageSwitcher(t: Translator, path: string): Raw {
  return html`<nav class="langs" aria-label="${t.t('footer.language')}"><ul>${LOCALES.map((l) => html`<li><a${attrs({
    href: `${path}?lang=${l}`,
    hreflang: l,
    lang: l,
    'aria-current': l === t.locale ? 'true' : undefined,
  })}>${LANGUAGE_NAMES[l]}</a></li>`)}</ul></nav>`;
}

/** Each language by its own name. */
const LANGUAGE_NAMES: Readonly<Record<Locale, string>> = { en: 'English', es: 'Español', 'pt-BR': 'Português', fr: 'Français', de: 'Deutsch', ar: 'العربية', tr: 'Türkçe' };

export function footerWith(t: Translator, path: string | undefined): Raw {
  return html`<footer class="trust">${ICONS.lock()}<span>${t.t('footer.secure')}</span></footer>${path ? languageSwitcher(t, path) : ''}`;
}

// ---------------------------------------------------------------------------------------------------
// Checkout

/** What happens after the payer continues with an alternative method, by its payer experience. */
const METHOD_INTROS: Readonly<Record<string, string>> = {
  redirect: 'intro.redirect',
  qr: 'intro.qr',
  details: 'intro.details',
  app_confirmation: 'intro.app',
  extra_fields: 'intro.fields',
  otp: 'intro.otp',
  link: 'intro.link',
};

function methodIntro(t: Translator, m: { label: string; experience?: string }): string {
  return t.t(METHOD_INTROS[m.experience ?? 'redirect'] ?? 'intro.redirect', { method: m.label });
}

/** The messages checkout.js shows (validation mirrors checkout-form.ts; countdown; busy button). */
export const CHECKOUT_CLIENT_KEYS = [
  ...Object.values(FORM_MESSAGE_KEYS),
  'summary.one', 'summary.many', 'countdown.in', 'countdown.expired', 'countdown.expiredLive', 'countdown.live1', 'countdown.live5', 'button.processing',
  'wallet.failed', 'wallet.notSupported',
] as const;

/** Method icons by group (inline SVG, decorative): cards, wallets, bank, cash, crypto. */
const GROUP_ICONS: Readonly<Record<MethodGroup, () => Raw>> = {
  card: () => ICONS.card(),
  wallet: () => ICONS.wallet(),
  bank: () => ICONS.bank(),
  cash: () => ICONS.cash(),
  crypto: () => ICONS.crypto(),
};

function methodPicker(t: Translator, vm: CheckoutPageView, selected: string, errors: Record<string, string>): Raw {
  const groups = METHOD_GROUPS.map((g) => ({ g, methods: vm.methods.filter((m) => (m.group ?? 'wallet') === g) })).filter((x) => x.methods.length > 0);
  // Groups follow the merchant's order: a group sits where its first method was listed.
  groups.sort((a, b) => vm.methods.indexOf(a.methods[0]!) - vm.methods.indexOf(b.methods[0]!));
  const showHeadings = groups.length > 1 && vm.methods.length > 3;
  return html`<fieldset class="methods" id="method">
  <legend>${t.t('method.legend')}</legend>
  ${groups.map(({ g, methods }) => html`${showHeadings ? html`<p class="method-group" aria-hidden="true">${t.t(`group.${g}`)}</p>` : ''}<div class="method-list">${methods.map(
    (m) => html`<label class="method-option">
      <input${attrs({ type: 'radio', name: 'method', value: m.key, checked: m.key === selected, 'aria-controls': `panel-${m.key}` })}>
      <span class="method-option-body">${GROUP_ICONS[m.group ?? 'wallet']()}<span>${m.key === 'card' ? t.t('method.card') : m.label}</span></span>
    </label>`,
  )}</div>`)}
  ${errors.method ? html`<p class="field-error" id="method-error">${ICONS.alert()}<span>${errors.method}</span></p>` : ''}
</fieldset>`;
}

export function renderCheckoutPage(vm: CheckoutPageView, t: Translator = EN): string {
  const errors = vm.errors ?? {};
  const present = new Set<string>();
  const labels: Record<string, string> = {};
  // Wallets are buttons at the top of the page (issue 31 item 13), never one of the form's methods: the form's one
  // Pay button pays the card or an alternative method.
  const formMethods = vm.methods.filter((m) => !isWalletKey(m.key));
  const multi = formMethods.length > 1;
  const selected = formMethods.some((m) => m.key === vm.selectedMethod) ? vm.selectedMethod : (formMethods[0]?.key ?? 'card');
  const expiryOnly = vm.cardOnly?.expiryOnly === true;
  const amountText = vm.order.amount;
  const payout = isPayout(vm.operation);

  const track = (name: string, label: string) => {
    present.add(name);
    labels[name] = label;
  };
  /** With several methods, native `required` would block a non-card choice without JS; the server checks. */
  const req = (on: boolean) => (on && !multi ? true : undefined);
  const L = {
    number: t.t('card.number'), expiry: t.t('card.expiry'), cvv: t.t('card.cvv'), holder: t.t('card.holder'),
  };

  // --- card panel
  const cardFields: Raw[] = [];
  const expiryInput = { type: 'text', inputmode: 'numeric', autocomplete: 'cc-exp', placeholder: t.t('card.expiryPlaceholder'), maxlength: 7, required: req(true), pattern: '(0[1-9]|1[0-2]) ?/ ?[0-9]{2}', spellcheck: 'false', 'data-validate': 'expiry', dir: 'ltr' };
  if (expiryOnly) {
    track('card_expiry', L.expiry);
    cardFields.push(
      html`<p class="panel-intro">${vm.cardOnly?.maskedCard ? html`${t.t('card.payoutCard')} <strong class="mono" dir="ltr">${vm.cardOnly.maskedCard}</strong>. ` : ''}${t.t('card.payoutIntro')}</p>`,
      field({ name: 'card_expiry', label: L.expiry, hint: t.t('card.expiryHint'), value: vm.values.expiry, error: errors.card_expiry, wrap: { class: 'field--short' }, input: expiryInput }),
    );
  } else {
    track('card_number', L.number);
    track('card_expiry', L.expiry);
    track('card_cvv', L.cvv);
    track('card_holder', L.holder);
    cardFields.push(
      field({
        name: 'card_number',
        label: L.number,
        error: errors.card_number,
        adornment: html`<span class="brand" id="card-brand" aria-hidden="true">${ICONS.card()}</span><span class="visually-hidden" id="card-brand-name" aria-live="polite"></span>`,
        input: { type: 'text', inputmode: 'numeric', autocomplete: 'cc-number', placeholder: '1234 1234 1234 1234', maxlength: 23, required: req(true), pattern: '[0-9 ]{13,23}', spellcheck: 'false', autocorrect: 'off', autocapitalize: 'off', 'data-validate': 'card-number', dir: 'ltr' },
      }),
      html`<div class="row">${field({ name: 'card_expiry', label: L.expiry, value: vm.values.expiry, error: errors.card_expiry, input: expiryInput })}${field({
        name: 'card_cvv',
        label: L.cvv,
        error: errors.card_cvv,
        hint: t.t('card.cvvHint'),
        input: { type: 'text', inputmode: 'numeric', autocomplete: 'cc-csc', placeholder: 'CVC', maxlength: 4, required: req(true), pattern: '[0-9]{3,4}', spellcheck: 'false', 'data-validate': 'cvv', dir: 'ltr' },
      })}</div>`,
      field({
        name: 'card_holder',
        label: L.holder,
        value: vm.values.cardHolder,
        error: errors.card_holder,
        input: { type: 'text', autocomplete: 'cc-name', placeholder: t.t('card.holderPlaceholder'), maxlength: 32, required: req(true), spellcheck: 'false', autocapitalize: 'characters', 'data-validate': 'holder' },
      }),
    );
  }

  if (vm.recurringConsent && !expiryOnly) cardFields.push(consentCheckbox(t, vm.merchantName));

  const picker = multi
    ? methodPicker(t, { ...vm, methods: formMethods }, selected, errors)
    : formMethods.length === 0 ? raw('') : html`<input type="hidden" name="method" value="${selected}">
<h2 class="section-title">${selected === 'card' ? (expiryOnly ? t.t('card.expiryTitle') : t.t('card.title')) : (formMethods[0]?.label ?? '')}</h2>`;
  if (multi) track('method', t.t('method.legend'));

  // --- email
  let emailBlock: Raw = raw('');
  if (vm.email) {
    track('email', t.t('email.label'));
    emailBlock = field({
      name: 'email',
      label: t.t('email.label'),
      optional: !vm.email.required,
      t,
      value: vm.email.value,
      error: errors.email,
      input: { type: 'email', autocomplete: 'email', inputmode: 'email', maxlength: 255, required: vm.email.required || undefined, spellcheck: 'false', 'data-validate': 'email', dir: 'ltr' },
    });
  }

  // --- phone: asked when a connector the session may route to requires it and the session has none
  let phoneBlock: Raw = raw('');
  if (vm.phone) {
    track('payer_phone', t.t('billing.phone'));
    phoneBlock = field({
      name: 'payer_phone',
      label: t.t('billing.phone'),
      value: vm.phone.value,
      error: errors.payer_phone,
      input: { type: 'tel', autocomplete: 'tel', inputmode: 'tel', maxlength: 32, required: true, 'data-validate': 'phone', dir: 'ltr' },
    });
  }

  // --- billing: the whole address when the MID or Protocol Mapping needs it, else only a missing state
  let billingBlock: Raw = raw('');
  const b = vm.billing.values;
  const country = (b.country ?? '').toUpperCase();
  if (vm.billing.required) {
    for (const [k, l] of [['billing_country', 'billing.country'], ['billing_state', 'billing.state'], ['billing_city', 'billing.city'], ['billing_address', 'billing.address'], ['billing_zip', 'billing.zip'], ['billing_phone', 'billing.phone']] as const) track(k, t.t(l));
    billingBlock = html`<fieldset class="billing">
  <legend class="section-title">${t.t('billing.title')}</legend>
  ${field({
    name: 'billing_country',
    label: t.t('billing.country'),
    value: country,
    error: errors.billing_country,
    options: [{ value: '', label: t.t('billing.selectCountry') }, ...vm.countries.map((c) => ({ value: c.code, label: c.name }))],
    input: { autocomplete: 'country', required: req(true), 'data-validate': 'country' },
  })}
  ${field({
    name: 'billing_state',
    label: t.t('billing.state'),
    value: b.state,
    error: errors.billing_state,
    hint: t.t('billing.stateHint'),
    wrap: { 'data-state-field': true },
    input: { type: 'text', autocomplete: 'address-level1', maxlength: 32, spellcheck: 'false', 'data-validate': 'state' },
  })}
  ${field({
    name: 'billing_address',
    label: t.t('billing.address'),
    value: b.address,
    error: errors.billing_address,
    input: { type: 'text', autocomplete: 'address-line1', maxlength: 32, minlength: 2, required: req(true), 'data-validate': 'address' },
  })}
  <div class="row">${field({
    name: 'billing_city',
    label: t.t('billing.city'),
    value: b.city,
    error: errors.billing_city,
    input: { type: 'text', autocomplete: 'address-level2', maxlength: 40, minlength: 2, required: req(true), 'data-validate': 'city' },
  })}${field({
    name: 'billing_zip',
    label: t.t('billing.zip'),
    value: b.zip,
    error: errors.billing_zip,
    input: { type: 'text', autocomplete: 'postal-code', maxlength: 10, minlength: 2, required: req(true), spellcheck: 'false', 'data-validate': 'zip' },
  })}</div>
  ${field({
    name: 'billing_phone',
    label: t.t('billing.phone'),
    optional: true,
    t,
    value: b.phone,
    error: errors.billing_phone,
    input: { type: 'tel', autocomplete: 'tel', inputmode: 'tel', maxlength: 32, 'data-validate': 'phone', dir: 'ltr' },
  })}
</fieldset>`;
  } else if (vm.billing.stateOnly) {
    track('billing_state', t.t('billing.state'));
    billingBlock = html`<input type="hidden" name="billing_country" value="${country}">${field({
      name: 'billing_state',
      label: t.t('billing.stateIn', { country: t.country(country) }),
      value: b.state,
      error: errors.billing_state,
      input: { type: 'text', autocomplete: 'address-level1', maxlength: 32, required: req(true), spellcheck: 'false' },
    })}`;
  }

  // Billing belongs to the card: with several methods it sits in the card panel, so choosing another method
  // disables it with the card fields.
  const billingInCard = multi && formMethods.some((m) => m.key === 'card');
  const panels = formMethods.map((m) => {
    const active = m.key === selected;
    const body =
      m.key === 'card'
        ? html`${cardFields}${billingInCard ? billingBlock : ''}${browserFields()}`
        : html`<p class="panel-intro">${ICONS.external()}<span>${methodIntro(t, m)}</span></p>`;
    return html`<div${attrs({
      class: `method-panel${active ? ' is-active' : ''}`,
      id: `panel-${m.key}`,
      'data-method': m.key,
      role: multi ? 'group' : undefined,
      'aria-label': multi ? (m.key === 'card' ? t.t('method.card') : m.label) : undefined,
    })}>${body}</div>`;
  });

  const payLabel = t.t(payout ? 'button.receive' : 'button.pay', { amount: amountText });
  const walletKeys = vm.methods.filter((m) => isWalletKey(m.key));
  const express = walletKeys.length === 0 ? raw('') : html`<section class="express" id="express" aria-labelledby="express-title">
    <h2 class="visually-hidden" id="express-title">${t.t('express.title')}</h2>
    ${walletKeys.map((m) => expressWallet(t, m, vm.wallets?.find((w) => w.method === m.key), vm, errors))}
    ${formMethods.length > 0 ? html`<p class="express-or" aria-hidden="true"><span>${t.t(formMethods.some((m) => m.key === 'card') && formMethods.length === 1 ? 'express.orCard' : 'express.or')}</span></p>` : ''}
  </section>`;
  const main = html`<main class="panel" id="main">
  ${vm.sandbox ? sandboxBanner(t) : ''}
  <section class="summary" aria-label="${t.t('summary.order')}">
    <div class="merchant"><span class="merchant-badge" aria-hidden="true">${initials(vm.merchantName)}</span><h1 class="merchant-name">${vm.merchantName}</h1></div>
    <p class="amount-label">${t.t(payout ? 'amount.payoutFrom' : 'amount.pay')}</p>
    <p class="amount"><span class="amount-value">${amountText}</span></p>
    ${vm.order.description ? html`<p class="description">${vm.order.description}</p>` : ''}
    <dl class="order-meta"><div><dt>${t.t('order.number')}</dt><dd>${vm.order.number}</dd></div></dl>
  </section>
  ${countdown(t, vm.expiresAt, vm.now)}
  ${express}
  <form class="pay-form" id="pay-form" method="post" action="${safeUrl(vm.actionUrl)}" accept-charset="utf-8" autocomplete="on" data-once>
    ${errorSummary(t, errors, present, labels, vm.decline)}
    ${formMethods.length > 0 ? html`<input type="hidden" name="device_id" value="">${emailBlock}
    ${phoneBlock}
    ${picker}
    <div class="method-panels">${panels}</div>
    ${billingInCard ? '' : billingBlock}
    <div class="pay-bar"><button type="submit" class="btn btn--primary btn--pay" id="pay-button">${ICONS.lock()}<span class="btn-label">${payLabel}</span></button></div>` : ''}
    ${vm.cancelUrl ? html`<p class="cancel"><button type="submit" form="cancel-form" class="link-button" id="cancel-link">${t.t('checkout.cancel')}</button></p>` : ''}
  </form>
  ${vm.cancelUrl ? html`<form id="cancel-form" method="post" action="${safeUrl(vm.cancelUrl)}" hidden></form>` : ''}
  ${walletForm(t, vm)}
</main>`;

  return layout({
    title: `${payLabel} · ${vm.merchantName}`,
    page: 'checkout',
    main,
    t,
    footer: footerWith(t, vm.languagePath),
    ...(vm.wallets?.length ? { scripts: [WALLET_SCRIPT_URL] } : {}),
    config: {
      sessionId: vm.sessionId,
      ...(vm.wallets?.length ? { wallets: vm.wallets, walletUrls: walletUrls(vm) } : {}),
      expiresAt: vm.expiresAt,
      expiredUrl: safeUrl(vm.expiredUrl),
      serverNow: vm.now ?? null,
      stateCountries: STATE_REQUIRED_COUNTRIES,
      focusErrors: Object.keys(errors).length > 0 || vm.decline !== undefined,
      expiryOnly,
      messages: clientMessages(t, CHECKOUT_CLIENT_KEYS),
    },
  });
}

// ---------------------------------------------------------------------------------------------------
// Wallet buttons (wallet.js runs them; without JavaScript the panel says the wallet needs it)

const isWalletKey = (key: string) => walletMethod(key) !== undefined;
const WALLET_LABELS: Readonly<Record<string, string>> = { applepay: 'Apple Pay', googlepay: 'Google Pay' };

/** A payment-page variant's payer fields the request lacked; they belong to the wallet form (form="wallet-form"). */
function walletPageFields(t: Translator, wallet: WalletButtonView, vm: CheckoutPageView, errors: Record<string, string>): Raw {
  const asked = new Set(wallet.collect ?? []);
  if (asked.size === 0) return raw('');
  const input = (extra: Record<string, string | number | boolean | undefined>) => ({ form: 'wallet-form', required: true, ...extra });
  const at = (name: string) => `${wallet.method}-${name}`;
  const fields: Raw[] = [];
  const add = (name: string, label: string, attrs: Record<string, string | number | boolean | undefined>, options?: { value: string; label: string }[]) => {
    if (asked.has(name)) fields.push(field({ name, id: at(name), label, error: errors[name], input: input(attrs), ...(options ? { options } : {}) }));
  };
  add('customer_name', t.t('wallet.payerName'), { type: 'text', autocomplete: 'name', maxlength: 64 });
  add('customer_email', t.t('email.label'), { type: 'email', autocomplete: 'email', inputmode: 'email', maxlength: 255, dir: 'ltr' });
  add('billing_country', t.t('billing.country'), { autocomplete: 'country' }, [{ value: '', label: t.t('billing.selectCountry') }, ...vm.countries.map((c) => ({ value: c.code, label: c.name }))]);
  add('billing_address', t.t('billing.address'), { type: 'text', autocomplete: 'address-line1', maxlength: 32, minlength: 2 });
  add('billing_city', t.t('billing.city'), { type: 'text', autocomplete: 'address-level2', maxlength: 40, minlength: 2 });
  add('billing_zip', t.t('billing.zip'), { type: 'text', autocomplete: 'postal-code', maxlength: 10, minlength: 2 });
  return html`<p class="panel-intro">${t.t('wallet.detailsFirst', { method: WALLET_LABELS[wallet.wallet] ?? wallet.wallet })}</p>${fields}`;
}

/** One wallet at the top of the page: its button (a page variant's payer fields above it), or why it is not offered. */
function expressWallet(t: Translator, m: { key: string; label: string }, wallet: WalletButtonView | undefined, vm: CheckoutPageView, errors: Record<string, string>): Raw {
  const label = WALLET_LABELS[walletMethod(m.key)?.wallet ?? ''] ?? m.label;
  if (!wallet) return html`<p class="panel-intro">${ICONS.wallet()}<span>${t.t('wallet.unavailable', { method: label })}</span></p>`;
  return html`<div class="express-wallet" data-method="${wallet.method}">
${walletPageFields(t, wallet, vm, errors)}
<button${attrs({ type: 'button', class: `btn btn--wallet wallet-button wallet-button--${wallet.wallet}`, id: `wallet-button-${wallet.method}`, 'data-wallet': wallet.wallet, 'data-method': wallet.method, 'data-mode': wallet.mode })}>${ICONS.wallet()}<span class="btn-label">${t.t('wallet.button', { method: label })}</span></button>
<p class="wallet-error" id="wallet-error-${wallet.method}" role="alert" hidden></p>
<noscript><p class="panel-intro">${t.t('wallet.noScript', { method: label })}</p></noscript>
</div>`;
}

function walletUrls(vm: CheckoutPageView): Record<string, string> {
  const base = `/checkout/${encodeURIComponent(vm.sessionId)}`;
  return { token: `/sandbox/wallets/${encodeURIComponent(vm.sessionId)}/token`, validate: `${base}/applepay/validate` };
}

/** The form wallet.js posts the sheet's token with, and the sandbox simulator's payment sheet. */
function walletForm(t: Translator, vm: CheckoutPageView): Raw {
  const wallets = vm.wallets ?? [];
  if (wallets.length === 0) return raw('');
  const label = (w: string) => (w === 'applepay' ? 'Apple Pay' : 'Google Pay');
  const simulated = wallets.filter((w) => w.mode === 'simulator');
  const sheet = simulated.length === 0 ? '' : html`<dialog class="wallet-sheet" id="wallet-sheet" aria-labelledby="wallet-sheet-title"${attrs(Object.fromEntries(simulated.map((w) => [`data-title-${w.wallet}`, t.t('wallet.sheetTitle', { method: label(w.wallet) })])))}>
  <form method="dialog" class="wallet-sheet-body">
    <h2 class="section-title" id="wallet-sheet-title">${t.t('wallet.sheetTitle', { method: label(simulated[0]!.wallet) })}</h2>
    <p class="panel-intro">${ICONS.flask()}<span>${t.t('wallet.sheetHint')}</span></p>
    <dl class="order-meta"><div><dt>${vm.merchantName}</dt><dd>${vm.order.amount}</dd></div></dl>
    <div class="field"><label for="wallet-sheet-card">${t.t('wallet.card')}</label><div class="input-wrap"><select id="wallet-sheet-card" name="card">
      <option value="success">${t.t('wallet.cardSuccess')}</option>
      <option value="decline">${t.t('wallet.cardDecline')}</option>
    </select></div></div>
    <div class="wallet-sheet-actions"><button type="button" class="btn btn--primary" id="wallet-sheet-pay"><span class="btn-label">${t.t('button.pay', { amount: vm.order.amount })}</span></button></div>
    <p class="cancel"><button type="button" class="btn btn--link" id="wallet-sheet-cancel">${t.t('wallet.cancel')}</button></p>
  </form>
</dialog>`;
  return html`<form id="wallet-form" method="post" action="${`/checkout/${encodeURIComponent(vm.sessionId)}/wallet`}" accept-charset="utf-8" hidden>
  <input type="hidden" name="method" value="">
  <input type="hidden" name="wallet" value="">
  <input type="hidden" name="payment_token" value="">
  <input type="hidden" name="device_id" value="">
</form>
${sheet}`;
}

// ---------------------------------------------------------------------------------------------------
// 3-D Secure ACS (sandbox)

/** The payer's agreement to the schedule's later charges: unticked by default, and optional (declined: paid once). */
function consentCheckbox(t: Translator, merchantName: string): Raw {
  const id = RECURRING_CONSENT_FIELD;
  return html`<div class="field field--check" data-field="${id}">
  <input${attrs({ type: 'checkbox', id, name: id, value: 'yes', 'aria-describedby': `${id}-hint` })}>
  <label for="${id}">${t.t('consent.recurring', { merchant: merchantName })}</label>
  <p class="hint" id="${id}-hint">${t.t('consent.recurringHint')}</p>
</div>`;
}

/**
 * The hidden browser_* fields (views.ts BROWSER_FORM_FIELDS), in the card panel: the card's 3-D Secure asks for them,
 * and choosing another method disables them with the card fields. javascript_enabled is false until the script runs.
 */
function browserFields(): Raw {
  return html`<div id="browser-fields" hidden>${BROWSER_FORM_FIELDS.map((name) => html`<input type="hidden" name="browser_${name}" value="${name === 'javascript_enabled' ? 'false' : ''}">`)}</div>`;
}

export function hiddenFields(fields: Record<string, string> | undefined): Raw[] {
  return Object.entries(fields ?? {}).map(([name, value]) => html`<input${attrs({ type: 'hidden', name, value })}>`);
}

// ---------------------------------------------------------------------------------------------------
// Sandbox provider screens (src/sandbox/templates.ts and the APM provider's in apm-pages.ts)

/** The header of every sandbox provider screen: the provider's name and a sandbox badge. */
export function providerHeader(name: string, t: Translator = EN): Raw {
  return html`<header class="provider-header">
    <span class="provider-logo">${ICONS.wallet()}</span>
    <div><p class="provider-name">${name}</p><p class="badge">${t.t('provider.badge')}</p></div>
  </header>`;
}

/** The approve/decline form of a sandbox provider's pages; `hidden` (a line of its own) carries the provider's fields. */
export function decisionForm(vm: { actionUrl: string; approveLabel: string; declineLabel: string }, hidden?: Raw[]): Raw {
  return html`<form method="post" action="${safeUrl(vm.actionUrl)}" accept-charset="utf-8" data-once>${hidden ? html`
    ${hidden}` : ''}
    <div class="actions">
      <button type="submit" class="btn btn--primary" name="decision" value="approve">${vm.approveLabel}</button>
      <button type="submit" class="btn btn--secondary" name="decision" value="decline">${vm.declineLabel}</button>
    </div>
  </form>`;
}

// ---------------------------------------------------------------------------------------------------
// Redirect (to the merchant, an ACS or a provider), with a receipt when the payment succeeded

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

function receiptBlock(t: Translator, r: ReceiptView): Raw {
  const rows: [string, Raw | string, string?][] = [
    [t.t('details.merchant'), r.merchantName],
    [t.t('details.amount'), r.amount, 'strong'],
    [t.t('details.method'), r.method],
    ...(r.maskedCard ? ([[t.t('details.card'), html`<span dir="ltr">${r.maskedCard}</span>`, 'mono']] as [string, Raw, string][]) : []),
    [t.t('details.date'), r.date],
    [t.t('details.order'), r.orderNumber],
    [t.t('details.reference'), html`<span dir="ltr">${r.reference}</span>`, 'mono'],
  ];
  return html`<dl class="details receipt" id="receipt">${rows.map(([dt, dd, cls]) => html`<div><dt>${dt}</dt><dd${attrs({ class: cls })}>${dd}</dd></div>`)}</dl>`;
}

export function renderRedirectPage(vm: RedirectPageView, t: Translator = EN): string {
  const url = safeUrl(vm.url);
  const leaveRel = vm.target === '_blank' ? 'noopener' : undefined;
  const continueLabel = vm.receipt ? t.t('receipt.continue') : t.t('redirect.continue');
  const control =
    vm.method === 'POST'
      ? html`<form id="redirect-form" method="post" action="${url}" target="${vm.target}" accept-charset="utf-8">
    ${hiddenFields(vm.params)}
    <button type="submit" class="btn btn--primary" id="redirect-continue">${continueLabel}</button>
  </form>`
      : html`<p><a${attrs({ id: 'redirect-link', class: 'btn btn--primary', href: urlWithParams(url, vm.params), target: vm.target, rel: leaveRel })}>${continueLabel}</a></p>`;
  const delay = vm.receipt ? vm.receipt.seconds : (vm.delaySeconds ?? 0);
  const kind = vm.receipt?.pending ? 'info' : 'success';
  const main = vm.receipt
    ? html`<main class="panel panel--narrow panel--center" id="main">
  <div class="status-icon status-icon--${kind}">${vm.receipt.pending ? ICONS.clock() : ICONS.check()}</div>
  <h1 class="page-title">${vm.title}</h1>
  <p class="lead" id="redirect-message">${vm.message}</p>
  ${receiptBlock(t, vm.receipt)}
  ${control}
  <p class="hint" id="receipt-countdown" aria-live="off">${t.t('receipt.returning', { seconds: delay })}</p>
  <p class="hint" id="redirect-window-note" hidden>${ICONS.external()} ${t.t('redirect.newWindow')}</p>
</main>`
    : html`<main class="panel panel--narrow panel--center" id="main">
  <div class="spinner" id="redirect-spinner" aria-hidden="true"></div>
  <h1 class="page-title">${vm.title}</h1>
  <p class="lead" id="redirect-message">${vm.message}</p>
  <p class="hint" id="redirect-nojs">${t.t('redirect.nojs')}</p>
  <p class="hint" id="redirect-window-note" hidden>${ICONS.external()} ${t.t('redirect.newWindow')}</p>
  ${control}
  ${delay > 0 ? html`<p class="hint" id="receipt-countdown" aria-live="off">${t.t('receipt.returning', { seconds: delay })}</p>` : ''}
</main>`;
  // Without JavaScript a receipt still moves on by itself, unless the target is another window.
  const refresh = delay > 0 && vm.method === 'GET' && vm.target !== '_blank' ? raw(`<noscript><meta http-equiv="refresh" content="${delay};url=${escapeHtml(urlWithParams(url, vm.params))}"></noscript>`) : undefined;
  return layout({
    title: vm.title,
    page: 'redirect',
    main,
    t,
    head: refresh,
    config: { url, method: vm.method, target: vm.target, delaySeconds: delay, messages: clientMessages(t, ['receipt.returning']) },
  });
}

// ---------------------------------------------------------------------------------------------------
// Messages

export function renderMessagePage(vm: MessagePageView, t: Translator = EN): string {
  const icon = vm.kind === 'success' ? ICONS.check() : vm.kind === 'error' ? ICONS.alert() : ICONS.info();
  const main = html`<main class="panel panel--narrow panel--center" id="main">
  <div class="status-icon status-icon--${vm.kind === 'success' ? 'success' : vm.kind === 'error' ? 'error' : 'info'}">${icon}</div>
  <h1 class="page-title">${vm.title}</h1>
  <p class="lead">${vm.message}</p>
  ${vm.link ? html`<p><a${attrs({ id: vm.link.id, class: 'btn btn--primary', href: safeUrl(vm.link.href), target: vm.link.target, rel: vm.link.target === '_blank' ? 'noopener' : undefined })}>${vm.link.label}</a></p>` : ''}
</main>`;
  return layout({ title: vm.title, page: 'message', main, t });
}
