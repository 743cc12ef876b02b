/**
 * The field schemas both S2S form channels (CARD and APM) build their requests from: the platform's value
 * limits, the keys every request carries, and a person's fields (payer_*, payee_*) by suffix, so that each
 * form names the ones it accepts and the limits are written once.
 */
import { Type, type TSchema } from '@sinclair/typebox';
import { MESSAGES } from '../domain/errors.ts';

export const text = (maxLength: number) => Type.String({ maxLength });
export const optional = (maxLength: number) => Type.Optional(text(maxLength));
export const Amount = Type.String({ maxLength: 32, pattern: '^[0-9]+(\\.[0-9]+)?$', errorMessage: MESSAGES.notValid });
export const Currency = Type.String({ pattern: '^[A-Z]{3,6}$', errorMessage: MESSAGES.notValid });
export const Url = (maxLength: number) => Type.String({ format: 'url', maxLength });
export const Email = Type.String({ format: 'email', maxLength: 256 });
export const Country = Type.String({ pattern: '^[A-Za-z]{2}$', errorMessage: MESSAGES.notValid });
export const Ip = Type.String({ format: 'ip', maxLength: 45 });
export const FreeForm = Type.Record(Type.String(), Type.Unknown());

/** What every request carries: the action, the merchant's key, the signature. */
export const base = { action: text(64), client_key: text(255), hash: text(128) };

/** The payment an answer names (answers are documented only: the actions build their bodies). */
export const answeredPayment = { order_id: Type.String(), trans_id: Type.String() };
/** What a payment's answer adds when it has them: the amount and currency concerned, why it was declined. */
export const answeredAmount = { amount: Type.Optional(Type.String()), currency: Type.Optional(Type.String()), decline_reason: Type.Optional(Type.String()) };

/** A person's fields, all optional, at the limits the forms share; a form may require or narrow one. */
const PERSON = {
  first_name: optional(32), last_name: optional(32), middle_name: optional(32), birth_date: Type.Optional(Type.String({ format: 'date' })),
  address: optional(255), address2: optional(255), house_number: optional(9), country: Type.Optional(Country),
  state: optional(32), city: optional(40), district: optional(32), zip: optional(10),
  email: Type.Optional(Email), phone: optional(32), phone_country_code: Type.Optional(Type.String({ pattern: '^\\+?[0-9]{1,4}$' })), ip: Type.Optional(Ip),
};
type Person = typeof PERSON;

/** `prefix`_`suffix` for each suffix, in the order given (the order of the form's documented fields). */
export function person<P extends string, S extends keyof Person>(prefix: P, suffixes: readonly S[]): { [K in S as `${P}_${K}`]: Person[K] } {
  return Object.fromEntries(suffixes.map((s) => [`${prefix}_${s}`, PERSON[s] as TSchema])) as { [K in S as `${P}_${K}`]: Person[K] };
}
