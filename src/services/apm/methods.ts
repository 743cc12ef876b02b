/**
 * What the method catalog means for an APM payment: which entries are alternative methods, which fields the
 * payer must give on the page before the provider is asked (the catalog's collect-on-page members the request
 * lacks, the billing country when such a member depends on it, and the e-mail or phone a link or a code is
 * sent to), and the catalog's parameter rules on S2S APM. Pure: no I/O.
 */
import { findMethod, type MethodEntry, type Operation, type ParamSpec } from '../../domain/methods/catalog.ts';
import { pageFields as catalogPageFields, validateMethodParameters } from '../../domain/methods/validate.ts';
import type { ApmExperience } from '../../connectors/apm-types.ts';
import type { PageField } from '../../domain/methods/page-field.ts';
import type { FieldError } from '../../domain/errors.ts';
import type { PayerInfo } from '../../domain/model/payment.ts';
import { isPayout } from '../../domain/operations.ts';

export type ApmMethod = MethodEntry & { experience: ApmExperience };

/** A catalog entry an APM flow can run: any method whose payer does not type a card. */
export function apmMethod(key: string, operation: Operation = 'purchase'): ApmMethod | undefined {
  const method = findMethod(key);
  if (!method || method.experience === 'card_form' || !method.operations.includes(operation)) return undefined;
  return method as ApmMethod;
}

/** Methods a channel may carry (an entry without a channel list is carried everywhere). */
export function carriedOn(method: MethodEntry, channel: 'checkout' | 's2s_apm'): boolean {
  return !method.channels || method.channels.includes(channel);
}

/**
 * Request fields (by the catalog's Checkout paths) that a payment keeps in its payer record: what the
 * catalog's `source: 'request'` members read, and where a value the payer gives on the page is kept.
 */
export const PAYER_PATHS: Readonly<Record<string, keyof PayerInfo>> = {
  'customer.email': 'email',
  'customer.name': 'name',
  'billing_address.phone': 'phone',
  'billing_address.country': 'country',
  'billing_address.state': 'state',
  'billing_address.city': 'city',
  'billing_address.address': 'address',
  'billing_address.zip': 'zip',
  // A payout's recipient: on a credit payment the payer record is the payee's.
  payee_first_name: 'firstName',
  payee_last_name: 'lastName',
  payee_email: 'email',
};

const COUNTRY_PATH = 'billing_address.country';
const present = (v: unknown) => v !== undefined && v !== null && v !== '';
const PHONE_NAME = /phone|mobile/i;

function payerRequest(payer: PayerInfo): Record<string, unknown> {
  return Object.fromEntries(Object.entries(PAYER_PATHS).map(([path, key]) => [path, payer[key]]));
}

function asField(path: string, spec: ParamSpec, source: PageField['source'], required: boolean): PageField {
  return {
    name: path, label: spec.label ?? humanize(path.split('.').at(-1) ?? path), source, required, spec,
    ...(spec.requiredIn ? { requiredIn: spec.requiredIn } : {}), ...(spec.exemptIn ? { exemptIn: spec.exemptIn } : {}),
  };
}

/** The contact an experience sends its message to, unless the method's own fields already collect it. */
function contactField(method: MethodEntry, payer: PayerInfo, params: Readonly<Record<string, unknown>>, asked: readonly PageField[], operation: Operation): PageField | undefined {
  // A payout's own parameters name where its link or money goes (the mail payout's payer_email).
  if (isPayout(operation)) return undefined;
  const sendBy = method.experience === 'link' ? (method.experienceOptions?.sendBy === 'sms' ? 'phone' : 'email') : method.experience === 'otp' ? 'phone' : undefined;
  if (sendBy === 'email' && !payer.email && !asked.some((f) => f.name === 'customer.email')) {
    return { name: 'customer.email', label: 'Email', source: 'payer', required: true, spec: { name: 'customer.email', type: 'email', requirement: 'required', maxLength: 255 } };
  }
  const phoneKnown = payer.phone || contactPhone(params) || asked.some((f) => PHONE_NAME.test(f.name));
  if (sendBy === 'phone' && !phoneKnown) {
    return { name: 'billing_address.phone', label: 'Mobile phone number', source: 'payer', required: true, spec: { name: 'billing_address.phone', type: 'string', requirement: 'required', maxLength: 32, pattern: '^\\+?[0-9][0-9 ()-]{5,31}$' } };
  }
  return undefined;
}

/** An e-mail address among a method's parameters (the mail payout's payer_email, customer_email and the like). */
export function contactEmail(params: Readonly<Record<string, unknown>>): string | undefined {
  const hit = Object.entries(params).find(([k, v]) => /email/i.test(k) && typeof v === 'string' && v !== '');
  return hit?.[1] as string | undefined;
}

/** A phone number among a method's parameters (payer_phone, mobile_number and the like). */
export function contactPhone(params: Readonly<Record<string, unknown>>): string | undefined {
  const hit = Object.entries(params).find(([k, v]) => PHONE_NAME.test(k) && typeof v === 'string' && v !== '');
  return hit?.[1] as string | undefined;
}

/**
 * The fields the payer must give on the page before the provider is asked. Members that depend on the
 * billing country are asked with the country when it is unknown (the page shows them for their countries).
 */
export function pageFields(method: MethodEntry, params: Readonly<Record<string, unknown>>, payer: PayerInfo, operation: Operation = 'purchase'): PageField[] {
  const country = payer.country?.toUpperCase();
  const asked = catalogPageFields(method, params, { operation, billingCountry: country, request: payerRequest(payer) })
    .map((f) => asField(f.path, f.spec, f.spec.source === 'request' ? 'payer' : 'param', f.required));
  if (!country) {
    const byCountry = method.params.filter((s) => s.collectOnPage && (s.requiredIn || s.exemptIn) && (s.source ?? 'parameters') === 'parameters' && !present(params[s.name]));
    const fresh = byCountry.filter((s) => !asked.some((f) => f.name === s.name)).map((s) => asField(s.name, s, 'param', true));
    if (fresh.length > 0 && !asked.some((f) => f.name === COUNTRY_PATH)) {
      asked.unshift({ name: COUNTRY_PATH, label: 'Country', source: 'payer', required: true, spec: { name: COUNTRY_PATH, type: 'string', requirement: 'required', format: 'country' } });
    }
    asked.push(...fresh);
  }
  const contact = contactField(method, payer, params, asked, operation);
  return contact ? [...asked, contact] : asked;
}

/** "document_number" -> "Document number", "upiAddress" -> "Upi address". */
export function humanize(name: string): string {
  const words = name.replace(/([a-z0-9])([A-Z])/g, '$1 $2').replace(/[_-]+/g, ' ').trim().toLowerCase();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** S2S APM field names of the catalog's request paths. */
const S2S_NAMES: Readonly<Record<string, string>> = {
  'order.number': 'order_id', 'order.amount': 'order_amount', 'order.currency': 'order_currency', 'order.description': 'order_description',
  'customer.email': 'payer_email', 'customer.name': 'payer_first_name', 'billing_address.phone': 'payer_phone', 'billing_address.country': 'payer_country',
  'billing_address.state': 'payer_state', 'billing_address.city': 'payer_city', 'billing_address.address': 'payer_address', 'billing_address.zip': 'payer_zip',
};

/**
 * The catalog's rules over an S2S APM request: parameters[...] (`parameters.<member>` in errors), the order
 * currency and the request fields members read. `canCollect`: the payer page may still ask (a SALE);
 * a payout has no payer page.
 */
export function s2sParameterErrors(method: MethodEntry, params: Readonly<Record<string, unknown>>, request: Readonly<Record<string, unknown>>, c: { operation: Operation; currency: string; country?: string; canCollect: boolean }): FieldError[] {
  const fields: Record<string, unknown> = Object.fromEntries(Object.entries(S2S_NAMES).map(([path, name]) => [path, request[name]]));
  for (const [name, value] of Object.entries(request)) if (!(name in fields)) fields[name] = value;
  // The payer's full name is two S2S fields.
  fields['customer.name'] = [request.payer_first_name, request.payer_last_name].filter((v) => typeof v === 'string' && v !== '').join(' ') || undefined;
  return validateMethodParameters(method, params, {
    operation: c.operation, currency: c.currency, billingCountry: c.country, canCollect: c.canCollect, request: fields,
    prefix: 'parameters', fieldName: (path) => S2S_NAMES[path] ?? path,
  });
}
