/**
 * The fields form of an alternative method: which inputs it shows (from the fields the service says are
 * missing) and the server-side reading of what the payer posted, with messages for people rather than the
 * API's. Fields that depend on the billing country are read only for the countries they apply to.
 */
import { appliesTo, type PageField } from '../domain/methods/page-field.ts';
import { isCountryCode } from '../domain/countries.ts';
import { localizeMessage, validateEmail } from './checkout-form.ts';
import { EN, type Translator } from './i18n.ts';
import type { ApmFieldView } from './apm-views.ts';

const COUNTRY = 'billing_address.country';
/** Hint message keys by field. */
const HINTS: Readonly<Record<string, string>> = {
  'customer.email': 'apm.hintEmail',
  'billing_address.phone': 'apm.hintPhone',
};

function kindOf(f: PageField): ApmFieldView['kind'] {
  if (f.name === COUNTRY || f.spec?.format === 'country') return 'country';
  if (f.spec?.type === 'email') return 'email';
  if (/phone|mobile/i.test(f.name)) return 'tel';
  return f.spec?.values && f.spec.values.length > 1 ? 'select' : 'text';
}

export function fieldViews(fields: readonly PageField[], t: Translator = EN): ApmFieldView[] {
  return fields.map((f) => {
    const spec = f.spec;
    const kind = kindOf(f);
    return {
      name: f.name,
      label: f.label,
      kind,
      ...(kind === 'select' && spec?.values ? { options: spec.values } : {}),
      ...(spec?.minLength !== undefined ? { minLength: spec.minLength } : {}),
      ...(spec?.maxLength !== undefined ? { maxLength: spec.maxLength } : {}),
      ...(spec?.shape === 'N' ? { numeric: true } : {}),
      ...(f.requiredIn ? { requiredIn: f.requiredIn } : {}),
      ...(f.exemptIn ? { exemptIn: f.exemptIn } : {}),
      ...(HINTS[f.name] ? { hint: t.t(HINTS[f.name]!) } : {}),
      ...(!f.required ? { optional: true } : {}),
    };
  });
}

export type FieldsFormResult = { ok: true; values: Record<string, string> } | { ok: false; errors: Record<string, string>; values: Record<string, string> };

function first(body: Record<string, unknown>, name: string): string {
  const v = body[name];
  const value = Array.isArray(v) ? v[0] : v;
  return typeof value === 'string' ? value.trim().slice(0, 1024) : '';
}

/** The message for a value, or undefined when it is fine. */
/**
 * The message for a value, or undefined when it is fine. The field's label leads ("Phone number: enter a
 * value"), so no article or possessive is glued to a label that may carry its own ("Your phone number").
 */
function message(t: Translator, f: PageField, value: string): string | undefined {
  const field = f.label;
  const kind = kindOf(f);
  if (value === '') return f.required ? t.t(kind === 'country' || kind === 'select' ? 'apm.errChoose' : 'apm.errEnter', { field }) : undefined;
  // Control characters are never part of a real value (and PostgreSQL cannot store NUL).
  if (/[\u0000-\u001f\u007f]/.test(value)) return t.t('apm.errChars', { field });
  if (kind === 'country') return isCountryCode(value) ? undefined : t.t('form.country');
  if (kind === 'email') {
    const error = validateEmail(value, true);
    if (error) return localizeMessage(t, error);
    // An e-mail member may have its own limits (the mail payout's payer_email: 2 to 60), checked below.
  }
  const spec = f.spec;
  if (!spec) return undefined;
  if (spec.values && spec.values.length > 0 && !spec.values.includes(value)) return t.t('apm.errChoose', { field });
  const length = [...value].length;
  if (spec.minLength !== undefined && length < spec.minLength) return t.t('apm.errMin', { count: spec.minLength });
  if (spec.maxLength !== undefined && length > spec.maxLength) return t.t('apm.errMax', { count: spec.maxLength });
  if (spec.shape === 'N' && !/^[0-9]+$/.test(value)) return t.t('apm.errDigits');
  if (spec.shape === 'A' && !/^\p{L}+$/u.test(value)) return t.t('apm.errLetters');
  if (spec.pattern && !new RegExp(spec.pattern, 'u').test(value)) return t.t('apm.errFormat', { field });
  return undefined;
}

/** Reads the posted fields form; `knownCountry` is the billing country the payment already has. */
export function parseFieldsForm(body: Record<string, unknown>, fields: readonly PageField[], knownCountry: string | undefined, t: Translator = EN): FieldsFormResult {
  const values: Record<string, string> = {};
  for (const f of fields) values[f.name] = first(body, f.name);
  const country = fields.some((f) => f.name === COUNTRY) ? values[COUNTRY]!.toUpperCase() : knownCountry;
  if (country !== undefined && fields.some((f) => f.name === COUNTRY)) values[COUNTRY] = country;
  const errors: Record<string, string> = {};
  const accepted: Record<string, string> = {};
  for (const f of fields) {
    if (!appliesTo(f, country || undefined)) continue;
    const error = message(t, f, values[f.name]!);
    if (error) errors[f.name] = error;
    else if (values[f.name] !== '') accepted[f.name] = values[f.name]!;
  }
  return Object.keys(errors).length === 0 ? { ok: true, values: accepted } : { ok: false, errors, values };
}
