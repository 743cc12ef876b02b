/**
 * S2S APM request schemas, one per action, to the limits of the platform's S2S APM document and wire-reference
 * 7.3 (brand up to 36, identifier up to 255, return_url up to 1024, payer_zip up to 32). Form values are
 * strings; an empty value counts as not sent. Unknown fields are ignored.
 */
import { Type, type Static } from '@sinclair/typebox';
import { MESSAGES } from '../../domain/errors.ts';
import { Amount, answeredAmount, answeredPayment, base, Currency, Email, FreeForm, Ip, optional, person, text, Url } from '../s2s-fields.ts';

const order = {
  channel_id: optional(16),
  brand: text(36),
  order_id: text(255),
  order_amount: Amount,
  order_currency: Currency,
  order_description: text(1024),
};

export const SaleRequest = Type.Object({
  ...base,
  ...order,
  identifier: optional(255),
  crypto_network: optional(50),
  ...person('payer', ['first_name', 'last_name', 'middle_name', 'address', 'house_number', 'country', 'state', 'city', 'district', 'zip', 'email', 'phone', 'birth_date']),
  payer_zip: optional(32),
  payer_ip: Ip,
  return_url: Url(1024),
  return_url_target: optional(1024),
  // Any value is accepted: exactly Y holds the funds, anything else is an immediate sale (interface spec).
  auth: optional(32),
  parameters: Type.Optional(FreeForm),
  custom_data: Type.Optional(FreeForm),
  callback_url: Type.Optional(Url(255)),
});
export type SaleRequest = Static<typeof SaleRequest>;

export const Credit2VirtualRequest = Type.Object({
  ...base,
  ...order,
  order_description: optional(1024),
  parameters: FreeForm,
  payee_first_name: text(60),
  payee_last_name: text(60),
  payee_email: Email,
  payee_phone: optional(32),
  custom_data: Type.Optional(FreeForm),
  callback_url: Type.Optional(Url(255)),
});
export type Credit2VirtualRequest = Static<typeof Credit2VirtualRequest>;

export const TransRequest = Type.Object({ ...base, trans_id: text(255) });
export type TransRequest = Static<typeof TransRequest>;

export const AmountTransRequest = Type.Object({ ...base, trans_id: text(255), amount: Type.Optional(Amount) });
export type AmountTransRequest = Static<typeof AmountTransRequest>;

/** The bank callback (ISO 20022 status report terms): the end-to-end id is the gateway's trans_id. */
export const BankCallback = Type.Object({
  EndToEndId: Type.String({ minLength: 1, maxLength: 64 }),
  TxSts: Type.String({ pattern: '^(ACSC|RJCT|PDNG)$', errorMessage: MESSAGES.notChoice }),
  TxId: Type.Optional(Type.String({ maxLength: 128 })),
});
export type BankCallback = Static<typeof BankCallback>;

// --- answers (OpenAPI only: actions build their bodies themselves; these schemas never serialize) -------------

export const ApmAnswer = Type.Object({
  action: Type.String(),
  result: Type.Union(['SUCCESS', 'DECLINED', 'REDIRECT', 'ACCEPTED', 'UNDEFINED'].map((v) => Type.Literal(v))),
  status: Type.Optional(Type.String()),
  ...answeredPayment,
  trans_date: Type.Optional(Type.String()),
  descriptor: Type.Optional(Type.String()),
  ...answeredAmount,
  redirect_url: Type.Optional(Type.String()),
  redirect_params: Type.Optional(Type.Union([Type.Record(Type.String(), Type.String()), Type.Array(Type.Never(), { maxItems: 0 })], { description: '[] when empty; the QR method adds qr_code (Base64)' })),
  redirect_method: Type.Optional(Type.String()),
}, { title: 'S2S APM answer' });

export const BankCallbackAnswer = Type.Object({ result: Type.Literal('OK'), trans_id: Type.String(), status: Type.String() });
