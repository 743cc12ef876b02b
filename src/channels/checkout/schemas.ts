/** Checkout JSON request schemas, to the limits of wire-reference 7.2. They also feed the OpenAPI description. */
import { Type, type Static } from '@sinclair/typebox';

const Url = Type.String({ format: 'url', maxLength: 1024 });
const AmountText = Type.Union([Type.String({ maxLength: 255 }), Type.Number()], { errorMessage: 'This value is not valid.' });
const Flag = Type.Union([Type.Boolean(), Type.Literal('Y'), Type.Literal('N'), Type.Literal('true'), Type.Literal('false')], { errorMessage: 'This value is not valid.' });
const Hash = Type.String({ minLength: 1, maxLength: 128 });
const MerchantKey = Type.String({ minLength: 1, maxLength: 255 });

export const OrderNumber = Type.String({ minLength: 1, maxLength: 255, pattern: '^[a-zA-Z0-9 _\\-!"#$%&\'()*+,./:;@=]+$' });

export const SessionRequest = Type.Object({
  merchant_key: MerchantKey,
  operation: Type.Union([Type.Literal('purchase'), Type.Literal('debit'), Type.Literal('credit')], { errorMessage: 'The value you selected is not a valid choice.' }),
  methods: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 64 }), { maxItems: 50 })),
  parameters: Type.Optional(Type.Record(Type.String(), Type.Record(Type.String(), Type.Unknown()))),
  order: Type.Object({
    number: OrderNumber,
    amount: AmountText,
    currency: Type.String({ pattern: '^[A-Z]{3,6}$' }),
    description: Type.String({ minLength: 2, maxLength: 1024 }),
  }),
  cancel_url: Url,
  success_url: Url,
  expiry_url: Type.Optional(Url),
  error_url: Type.Optional(Url),
  url_target: Type.Optional(Type.Union(['_blank', '_self', '_parent', '_top'].map((v) => Type.Literal(v)), { errorMessage: 'The value you selected is not a valid choice.' })),
  session_expiry: Type.Optional(Type.Integer({ minimum: 1, maximum: 720 })),
  req_token: Type.Optional(Flag),
  recurring_init: Type.Optional(Flag),
  vat_calc: Type.Optional(Flag),
  auth: Type.Optional(Flag),
  custom_data: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
  customer: Type.Optional(Type.Object({
    name: Type.Optional(Type.String({ minLength: 2, maxLength: 32 })),
    email: Type.Optional(Type.String({ minLength: 2, maxLength: 255, format: 'email' })),
    birth_date: Type.Optional(Type.String({ format: 'date' })),
    ip: Type.Optional(Type.String({ format: 'ip' })),
  })),
  billing_address: Type.Optional(Type.Object({
    country: Type.Optional(Type.String({ pattern: '^[A-Z]{2}$' })),
    state: Type.Optional(Type.String({ minLength: 2, maxLength: 32 })),
    city: Type.Optional(Type.String({ minLength: 2, maxLength: 40 })),
    address: Type.Optional(Type.String({ minLength: 2, maxLength: 32 })),
    zip: Type.Optional(Type.String({ minLength: 2, maxLength: 10 })),
    phone: Type.Optional(Type.String({ minLength: 1, maxLength: 32, pattern: '^[0-9+() -]+$' })),
    district: Type.Optional(Type.String({ minLength: 2, maxLength: 32 })),
    house_number: Type.Optional(Type.String({ minLength: 1, maxLength: 9 })),
  })),
  payer_ip: Type.Optional(Type.String({ format: 'ip' })),
  card_token: Type.Optional(Type.Union([Type.String({ minLength: 64, maxLength: 64 }), Type.Array(Type.String({ minLength: 64, maxLength: 64 }), { maxItems: 20 })], { errorMessage: 'This value is not valid.' })),
  schedule_id: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
  schedule_start_date: Type.Optional(Type.String({ format: 'date' })),
  payment_schedule_amount: Type.Optional(AmountText),
  payee_first_name: Type.Optional(Type.String({ maxLength: 32 })),
  payee_last_name: Type.Optional(Type.String({ maxLength: 32 })),
  payee: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
  payee_billing_address: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
  accountId: Type.Optional(Type.String({ maxLength: 255 })),
  hash: Hash,
});
export type SessionRequest = Static<typeof SessionRequest>;

export const SessionResponse = Type.Object({ redirect_url: Type.String() });

const Size = Type.Union([Type.Integer(), Type.String({ pattern: '^-?[0-9]+$' })], { errorMessage: 'size should be within 1..100' });

export const StatusRequest = Type.Union([
  Type.Object({ merchant_key: MerchantKey, payment_id: Type.String({ minLength: 1, maxLength: 64 }), hash: Hash }),
  Type.Object({ merchant_key: MerchantKey, order_id: Type.String({ minLength: 1, maxLength: 255 }), size: Type.Optional(Size), hash: Hash }),
]);

/** Looser shape used for validation, so that errors name the missing field rather than the union. */
export const StatusRequestShape = Type.Object({
  merchant_key: MerchantKey,
  payment_id: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
  order_id: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
  size: Type.Optional(Size),
  hash: Hash,
});
export type StatusRequest = Static<typeof StatusRequestShape>;

export const AmountRequest = Type.Object({
  merchant_key: MerchantKey,
  payment_id: Type.String({ minLength: 1, maxLength: 64 }),
  amount: Type.Optional(AmountText),
  hash: Hash,
});
export type AmountRequest = Static<typeof AmountRequest>;

export const PaymentIdRequest = Type.Object({
  merchant_key: MerchantKey,
  payment_id: Type.String({ minLength: 1, maxLength: 64 }),
  hash: Hash,
});
export type PaymentIdRequest = Static<typeof PaymentIdRequest>;
