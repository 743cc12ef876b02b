/**
 * Server-side reading and validation of the hosted Checkout form (the fields named in views.ts
 * CHECKOUT_FIELDS). The browser script (assets/checkout.js) applies the same rules with the same messages
 * before submitting; this module is the authority, since the page must also work without JavaScript.
 */
import { isCountryCode, stateRequired } from '../domain/countries.ts';
import { luhnValid } from '../domain/card.ts';
import type { WalletPageField } from '../domain/wallets/wallet-flow.ts';
import { EN, type Translator } from './i18n.ts';

/** Message keys (src/web/locales) of the form's rules; the browser script shows the same ones. */
export const FORM_MESSAGE_KEYS = {
  method: 'form.method',
  cardNumberEmpty: 'form.cardNumberEmpty',
  cardNumberLength: 'form.cardNumberLength',
  cardNumberLuhn: 'form.cardNumberLuhn',
  expiryEmpty: 'form.expiryEmpty',
  expiryFormat: 'form.expiryFormat',
  expiryPast: 'form.expiryPast',
  cvvEmpty: 'form.cvvEmpty',
  cvvFormat: 'form.cvvFormat',
  holderEmpty: 'form.holderEmpty',
  holderLength: 'form.holderLength',
  holderChars: 'form.holderChars',
  country: 'form.country',
  stateEmpty: 'form.stateEmpty',
  stateFormat: 'form.stateFormat',
  city: 'form.city',
  address: 'form.address',
  zip: 'form.zip',
  phone: 'form.phone',
  emailEmpty: 'form.emailEmpty',
  email: 'form.email',
  nameEmpty: 'form.nameEmpty',
} as const;

/** The English messages (the form's rules answer these; a translator turns them into the page's locale). */
export const MESSAGES = Object.fromEntries(Object.entries(FORM_MESSAGE_KEYS).map(([k, key]) => [k, EN.t(key)])) as Record<keyof typeof FORM_MESSAGE_KEYS, string>;

/** Digits of a card number as typed (spaces and hyphens dropped); undefined when other characters occur. */
export function cardDigits(input: string): string | undefined {
  const compact = input.replace(/[\s-]/g, '');
  return /^\d*$/.test(compact) ? compact : undefined;
}

export function validateCardNumber(input: string): string | undefined {
  const digits = cardDigits(input.trim());
  if (input.trim() === '') return MESSAGES.cardNumberEmpty;
  if (digits === undefined || digits.length < 13 || digits.length > 19) return MESSAGES.cardNumberLength;
  if (!luhnValid(digits)) return MESSAGES.cardNumberLuhn;
  return undefined;
}

/** MM/YY (also MMYY, M/YY, MM/YYYY, spaces around the slash). Month 01..12, year as four digits. */
export function parseExpiry(input: string): { month: string; year: string } | undefined {
  const m = /^\s*(\d{1,2})\s*\/?\s*(\d{2}|\d{4})\s*$/.exec(input);
  if (!m || (m[1]!.length === 1 && !input.includes('/'))) return undefined;
  const month = Number(m[1]);
  if (month < 1 || month > 12) return undefined;
  const year = m[2]!.length === 2 ? `20${m[2]}` : m[2]!;
  return { month: String(month).padStart(2, '0'), year };
}

/** The card is valid through the last day of its expiry month (UTC). */
export function validateExpiry(input: string, now: Date): string | undefined {
  if (input.trim() === '') return MESSAGES.expiryEmpty;
  const exp = parseExpiry(input);
  if (!exp) return MESSAGES.expiryFormat;
  const y = Number(exp.year);
  const mo = Number(exp.month);
  const ny = now.getUTCFullYear();
  const nm = now.getUTCMonth() + 1;
  if (y < ny || (y === ny && mo < nm)) return MESSAGES.expiryPast;
  return undefined;
}

export function validateCvv(input: string): string | undefined {
  if (input.trim() === '') return MESSAGES.cvvEmpty;
  return /^\d{3,4}$/.test(input.trim()) ? undefined : MESSAGES.cvvFormat;
}

/** Collapses runs of white space; the stored form of the name on the card. */
export function normalizeHolder(input: string): string {
  return input.trim().replace(/\s+/g, ' ');
}

export function validateHolder(input: string): string | undefined {
  const name = normalizeHolder(input);
  if (name === '') return MESSAGES.holderEmpty;
  if (name.length > 32) return MESSAGES.holderLength;
  if (!/^[\p{L}\p{M}' .-]+$/u.test(name) || !/\p{L}/u.test(name)) return MESSAGES.holderChars;
  return undefined;
}

export function validateEmail(input: string, required: boolean): string | undefined {
  const v = input.trim();
  if (v === '') return required ? MESSAGES.emailEmpty : undefined;
  if (v.length > 255 || !/^[^\s@\p{Cc}]+@[^\s@\p{Cc}]+\.[^\s@\p{Cc}]+$/u.test(v)) return MESSAGES.email;
  return undefined;
}

function lengthBetween(v: string, min: number, max: number): boolean {
  return v.length >= min && v.length <= max;
}

export interface CheckoutFormOptions {
  /** The injected clock's now, for the expiry check. */
  now: Date;
  /** Method keys offered by the session. */
  methods: string[];
  billingRequired: boolean;
  /** undefined: the page shows no email field. */
  email?: { required: boolean };
  /** The page asks the payer's phone (required: a connector needs it). */
  phone?: boolean;
  /** Payout with card_token: only the expiry is asked. */
  expiryOnly?: boolean;
  /** Only the billing state is asked (the merchant sent a country whose state the rule needs, and no state). */
  stateOnly?: { country: string };
  /** The page shows the recurring consent checkbox (its answer is read, never required). */
  recurringConsent?: boolean;
  /** The page's language for the messages; English by default. */
  t?: Translator;
}

const KEY_OF_MESSAGE: ReadonlyMap<string, string> = new Map(Object.entries(FORM_MESSAGE_KEYS).map(([k, key]) => [MESSAGES[k as keyof typeof MESSAGES], key]));

/** A rule's English message in the page's language. */
export function localizeMessage(t: Translator, message: string): string {
  const key = KEY_OF_MESSAGE.get(message);
  return key ? t.t(key) : message;
}

export interface CheckoutFormValue {
  method: string;
  /** Present for method card (without number, cvv and holder when expiryOnly). */
  card?: { number?: string; expMonth: string; expYear: string; cvv?: string; holder?: string };
  billing?: { country: string; state?: string; city: string; address: string; zip: string; phone?: string };
  email?: string;
  phone?: string;
  /** Asked only with recurring_consent_required: whether the payer ticked the consent checkbox. */
  recurringConsent?: boolean;
}

export type CheckoutFormResult =
  | { ok: true; value: CheckoutFormValue }
  | {
      ok: false;
      /** Field name -> message, ready for CheckoutPageView.errors. */
      errors: Record<string, string>;
      /** Ready for CheckoutPageView.values (never the card number or CVV). */
      values: { cardHolder?: string; expiry?: string };
      /** Ready for CheckoutPageView.billing.values. */
      billing: Record<string, string>;
      email?: string;
      phone?: string;
    };

/** Form bodies may repeat a field; the first value counts. */
function field(body: Record<string, unknown>, name: string): string {
  const v = body[name];
  const first = Array.isArray(v) ? v[0] : v;
  return typeof first === 'string' ? first : '';
}

/** Reads and validates a posted Checkout form. Billing `state` is ignored for countries that have none. */
export function parseCheckoutForm(body: Record<string, unknown>, opts: CheckoutFormOptions): CheckoutFormResult {
  const errors: Record<string, string> = {};
  const t = opts.t ?? EN;
  const set = (name: string, message: string | undefined): void => {
    if (message !== undefined) errors[name] = localizeMessage(t, message);
  };

  const method = field(body, 'method') || (opts.methods.length === 1 ? opts.methods[0]! : '');
  if (!opts.methods.includes(method)) set('method', MESSAGES.method);

  const value: CheckoutFormValue = { method };
  const holderInput = field(body, 'card_holder');
  const expiryInput = field(body, 'card_expiry');

  if (method === 'card') {
    set('card_expiry', validateExpiry(expiryInput, opts.now));
    if (!opts.expiryOnly) {
      set('card_number', validateCardNumber(field(body, 'card_number')));
      set('card_cvv', validateCvv(field(body, 'card_cvv')));
      set('card_holder', validateHolder(holderInput));
    }
    const exp = parseExpiry(expiryInput);
    if (exp) {
      value.card = opts.expiryOnly
        ? { expMonth: exp.month, expYear: exp.year }
        : {
            number: cardDigits(field(body, 'card_number')) ?? '',
            expMonth: exp.month,
            expYear: exp.year,
            cvv: field(body, 'card_cvv').trim(),
            holder: normalizeHolder(holderInput),
          };
    }
  }

  const billing: Record<string, string> = {};
  if (opts.billingRequired) {
    for (const k of ['country', 'state', 'city', 'address', 'zip', 'phone'] as const) {
      billing[k] = field(body, `billing_${k}`).trim().replace(/\s+/g, ' ');
    }
    const country = billing.country!.toUpperCase();
    billing.country = country;
    if (!isCountryCode(country)) set('billing_country', MESSAGES.country);
    const withState = stateRequired(country);
    if (withState) {
      if (billing.state === '') set('billing_state', MESSAGES.stateEmpty);
      else if (!lengthBetween(billing.state!, 2, 32)) set('billing_state', MESSAGES.stateFormat);
    }
    if (!lengthBetween(billing.city!, 2, 40)) set('billing_city', MESSAGES.city);
    if (!lengthBetween(billing.address!, 2, 32)) set('billing_address', MESSAGES.address);
    if (!lengthBetween(billing.zip!, 2, 10)) set('billing_zip', MESSAGES.zip);
    if (billing.phone !== '' && !/^[0-9 +()-]{1,32}$/.test(billing.phone!)) set('billing_phone', MESSAGES.phone);
    value.billing = {
      country,
      ...(withState ? { state: billing.state! } : {}),
      city: billing.city!,
      address: billing.address!,
      zip: billing.zip!,
      ...(billing.phone ? { phone: billing.phone } : {}),
    };
  }

  if (opts.stateOnly && method === 'card') {
    const state = field(body, 'billing_state').trim().replace(/\s+/g, ' ');
    billing.state = state;
    if (state === '') set('billing_state', MESSAGES.stateEmpty);
    else if (!lengthBetween(state, 2, 32)) set('billing_state', MESSAGES.stateFormat);
    // Only the state is added: the rest of the merchant's address stays as it was sent.
    value.billing = { country: opts.stateOnly.country, state, city: '', address: '', zip: '' };
  }

  let email: string | undefined;
  if (opts.email) {
    email = field(body, 'email').trim();
    set('email', validateEmail(email, opts.email.required));
    if (email !== '') value.email = email;
  }

  let phone: string | undefined;
  if (opts.phone && method === 'card') {
    phone = field(body, 'payer_phone').trim().replace(/\s+/g, ' ');
    if (!/^[0-9 +()-]{1,32}$/.test(phone) || !/[0-9]/.test(phone)) set('payer_phone', MESSAGES.phone);
    else value.phone = phone;
  }

  if (opts.recurringConsent && method === 'card') value.recurringConsent = field(body, 'recurring_consent') === 'yes';

  if (Object.keys(errors).length === 0) return { ok: true, value };
  return {
    ok: false,
    errors,
    values: {
      ...(holderInput ? { cardHolder: holderInput.slice(0, 64) } : {}),
      ...(expiryInput ? { expiry: expiryInput.slice(0, 16) } : {}),
    },
    billing,
    ...(email !== undefined ? { email } : {}),
    ...(phone !== undefined ? { phone } : {}),
  };
}

/** The payer fields of a wallet's payment-page variant (domain/wallets/wallet-flow.ts WALLET_PAGE_FIELDS). */
export interface WalletPagePayer {
  name?: string;
  email?: string;
  country?: string;
  city?: string;
  address?: string;
  zip?: string;
}

const WALLET_PAGE_RULES: Readonly<Record<WalletPageField, { read: (v: string) => string; check: (v: string) => string | undefined; into: keyof WalletPagePayer }>> = {
  customer_name: { read: normalizeHolder, check: (v) => (v === '' ? MESSAGES.nameEmpty : !/^[\p{L}\p{M}' .-]{1,64}$/u.test(v) ? MESSAGES.holderChars : undefined), into: 'name' },
  customer_email: { read: (v) => v.trim(), check: (v) => validateEmail(v, true), into: 'email' },
  billing_country: { read: (v) => v.trim().toUpperCase(), check: (v) => (isCountryCode(v) ? undefined : MESSAGES.country), into: 'country' },
  billing_city: { read: (v) => v.trim().replace(/\s+/g, ' '), check: (v) => (lengthBetween(v, 2, 40) ? undefined : MESSAGES.city), into: 'city' },
  billing_address: { read: (v) => v.trim().replace(/\s+/g, ' '), check: (v) => (lengthBetween(v, 2, 32) ? undefined : MESSAGES.address), into: 'address' },
  billing_zip: { read: (v) => v.trim(), check: (v) => (lengthBetween(v, 2, 10) ? undefined : MESSAGES.zip), into: 'zip' },
};

/** Reads and checks the asked fields; English messages by field name (localizeMessage turns them into the page's). */
export function parseWalletPagePayer(body: Record<string, unknown>, asked: readonly WalletPageField[]): { ok: true; payer: WalletPagePayer } | { ok: false; errors: Record<string, string> } {
  const payer: WalletPagePayer = {};
  const errors: Record<string, string> = {};
  for (const name of asked) {
    const rule = WALLET_PAGE_RULES[name];
    const value = rule.read(field(body, name));
    const error = rule.check(value);
    if (error) errors[name] = error;
    else payer[rule.into] = value;
  }
  return Object.keys(errors).length === 0 ? { ok: true, payer } : { ok: false, errors };
}

/** Browser details the hosted page posts (browser_* hidden fields), by stored name, with the shape each must have. */
const BROWSER_FORM_RULES: Readonly<Record<string, RegExp>> = {
  javascript_enabled: /^(true|false)$/,
  java_enabled: /^(true|false)$/,
  color_depth: /^[0-9]{1,2}$/,
  screen_height: /^[0-9]{1,6}$/,
  screen_width: /^[0-9]{1,6}$/,
  timezone_offset: /^-?[0-9]{1,4}$/,
  language: /^[A-Za-z]{1,8}(-[A-Za-z0-9]{1,8})*$/,
  platform: /^[\x20-\x7e]{1,64}$/,
};

/**
 * The payer's browser as the hosted page saw it: what its script posted (values of the wrong shape are dropped),
 * completed from the request's own headers (user agent, accept headers, the first language asked for).
 */
export function readBrowser(body: Record<string, unknown>, headers: Readonly<Record<string, string | string[] | undefined>>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, rule] of Object.entries(BROWSER_FORM_RULES)) {
    const value = field(body, `browser_${name}`).trim();
    if (rule.test(value)) out[name] = value;
  }
  const header = (name: string) => (typeof headers[name] === 'string' ? (headers[name] as string).replace(/[\u0000-\u001f\u007f]/g, '').slice(0, 2048) : '');
  const userAgent = header('user-agent');
  const accept = header('accept');
  if (userAgent) out.user_agent = userAgent;
  if (accept) out.accept_headers = accept;
  const language = /^[A-Za-z]{1,8}(-[A-Za-z0-9]{1,8})*/.exec(header('accept-language'))?.[0];
  if (!out.language && language) out.language = language;
  out.javascript_enabled ??= 'false';
  return out;
}
