/**
 * Server-side reading and validation of the hosted Checkout form (the fields named in views.ts
 * CHECKOUT_FIELDS). The browser script (assets/checkout.js) applies the same rules with the same messages
 * before submitting; this module is the authority, since the page must also work without JavaScript.
 */
import { isCountryCode, stateRequired } from '../domain/countries.ts';

export const MESSAGES = {
  method: 'Choose a payment method',
  cardNumberEmpty: 'Enter the card number',
  cardNumberLength: 'Enter a card number of 13 to 19 digits',
  cardNumberLuhn: 'This card number is not valid. Check it and try again',
  expiryEmpty: 'Enter the expiry date',
  expiryFormat: 'Enter the expiry date as MM/YY',
  expiryPast: 'This card has expired',
  cvvEmpty: 'Enter the security code',
  cvvFormat: 'The security code is 3 or 4 digits',
  holderEmpty: 'Enter the name on the card',
  holderWords: 'Enter the first and last name as shown on the card',
  holderLength: 'The name on the card can be at most 32 characters',
  holderChars: 'The name can contain only letters, spaces, apostrophes, dots and hyphens',
  country: 'Select a country',
  stateEmpty: 'Enter the state or province',
  stateFormat: 'Enter the 2-letter state or province code (2 to 32 characters)',
  city: 'Enter the city (2 to 40 characters)',
  address: 'Enter the street address (2 to 32 characters)',
  zip: 'Enter the postal code (2 to 10 characters)',
  phone: 'Enter a phone number of up to 32 digits, spaces, +, ( ) and -',
  emailEmpty: 'Enter your email address',
  email: 'Enter a valid email address, like name@example.com',
} as const;

/** Luhn (mod 10) check over a string of digits. */
export function luhnValid(digits: string): boolean {
  if (!/^\d+$/.test(digits)) return false;
  let sum = 0;
  let double = false;
  for (let i = digits.length - 1; i >= 0; i--) {
    let d = digits.charCodeAt(i) - 48;
    if (double) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
    double = !double;
  }
  return sum % 10 === 0;
}

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
  if (!/^[\p{L}\p{M}' .-]+$/u.test(name)) return MESSAGES.holderChars;
  if (name.split(' ').filter((w) => /\p{L}/u.test(w)).length < 2) return MESSAGES.holderWords;
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
  /** Payout with card_token: only the expiry is asked. */
  expiryOnly?: boolean;
}

export interface CheckoutFormValue {
  method: string;
  /** Present for method card (without number, cvv and holder when expiryOnly). */
  card?: { number?: string; expMonth: string; expYear: string; cvv?: string; holder?: string };
  billing?: { country: string; state?: string; city: string; address: string; zip: string; phone?: string };
  email?: string;
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
  const set = (name: string, message: string | undefined): void => {
    if (message !== undefined) errors[name] = message;
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

  let email: string | undefined;
  if (opts.email) {
    email = field(body, 'email').trim();
    set('email', validateEmail(email, opts.email.required));
    if (email !== '') value.email = email;
  }

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
  };
}
