/**
 * A field of an APM payment's page form and its country rule. Pure: the service that decides which fields a page
 * asks for (services/apm/methods.ts) and the template that draws them (web/apm-form.ts) share it.
 */
import type { ParamSpec } from './catalog.ts';

/** A field of the page's form: a method parameter, a payer detail of the request, or a contact. */
export interface PageField {
  /** Member path in parameters.<method> (`bankDetails.cbu`), or the payer's request path (`customer.email`). */
  name: string;
  label: string;
  source: 'param' | 'payer';
  required: boolean;
  /** Shown and required only for these billing countries (the country-dependent fields kind). */
  requiredIn?: readonly string[];
  /** Not asked for these billing countries. */
  exemptIn?: readonly string[];
  spec?: ParamSpec;
}

/** Whether a field with this country rule applies to a payer in `country` (unknown country: it may). */
export function appliesTo(rule: Pick<PageField, 'requiredIn' | 'exemptIn'>, country: string | undefined): boolean {
  if (!country) return true;
  if (rule.requiredIn && !rule.requiredIn.includes(country)) return false;
  return !rule.exemptIn?.includes(country);
}
