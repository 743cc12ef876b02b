/** Checkout JSON request schemas, to the limits of wire-reference 7.2. They also feed the OpenAPI description. */
import { Type, type Static } from '@sinclair/typebox';
import { DEVICE_ID_PATTERN } from '../../domain/risk/device.ts';

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
  // Each member is checked against the method catalog (domain/methods/validate.ts), which names the failing path.
  parameters: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
  order: Type.Object({
    number: OrderNumber,
    amount: AmountText,
    currency: Type.String({ pattern: '^[A-Z]{3,6}$' }),
    description: Type.String({ minLength: 2, maxLength: 1024 }),
  }),
  cancel_url: Type.Optional(Url),
  success_url: Url,
  expiry_url: Type.Optional(Url),
  error_url: Type.Optional(Url),
  url_target: Type.Optional(Type.Union(['_blank', '_self', '_parent', '_top'].map((v) => Type.Literal(v)), { errorMessage: 'The value you selected is not a valid choice.' })),
  session_expiry: Type.Optional(Type.Integer({ minimum: 1, maximum: 720 })),
  locale: Type.Optional(Type.String({ minLength: 2, maxLength: 16, pattern: '^[A-Za-z]{2,3}([_-][A-Za-z0-9]{2,8})*$', description: 'Language of the hosted pages (BCP 47, e.g. es, pt-BR, ar); the payer\'s browser language when absent. Beyond the platform\'s interface.' })),
  req_token: Type.Optional(Flag),
  recurring_init: Type.Optional(Flag),
  recurring_consent_required: Type.Optional(Type.Union([Type.Boolean(), Type.Literal('Y'), Type.Literal('N'), Type.Literal('true'), Type.Literal('false')], {
    errorMessage: 'This value is not valid.',
    description: 'With schedule_id: the hosted page shows a consent checkbox for the schedule\'s later charges. Declined, the payment is one-time (no recurring_token) and the callback says extended_data[consent_state]=ignored.',
  })),
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
    // 2 to 32 characters only for CA, US, JP, AU and IN (checkout-sessions.ts); elsewhere hidden and not validated.
    state: Type.Optional(Type.String({ maxLength: 255 })),
    city: Type.Optional(Type.String({ minLength: 2, maxLength: 40 })),
    address: Type.Optional(Type.String({ minLength: 2, maxLength: 32 })),
    zip: Type.Optional(Type.String({ minLength: 2, maxLength: 10 })),
    phone: Type.Optional(Type.String({ minLength: 1, maxLength: 32, pattern: '^[0-9+() -]+$' })),
    district: Type.Optional(Type.String({ minLength: 2, maxLength: 32 })),
    house_number: Type.Optional(Type.String({ minLength: 1, maxLength: 9 })),
    // The payer attributes payer_address2 and payer_phone_country_code read these (beyond the platform's table).
    address2: Type.Optional(Type.String({ minLength: 1, maxLength: 255, description: 'Second address line (payer_address2 in callbacks and status answers).' })),
    phone_country_code: Type.Optional(Type.String({ pattern: '^\\+?[0-9]{1,4}$', description: 'Country calling code of phone, e.g. 44 (payer_phone_country_code).' })),
  })),
  payer_ip: Type.Optional(Type.String({ format: 'ip' })),
  card_token: Type.Optional(Type.Union([Type.String({ minLength: 64, maxLength: 64 }), Type.Array(Type.String({ minLength: 64, maxLength: 64 }), { maxItems: 20 })], { errorMessage: 'This value is not valid.' })),
  schedule_id: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
  schedule_start_date: Type.Optional(Type.String({ format: 'date' })),
  payment_schedule_amount: Type.Optional(AmountText),
  payee_first_name: Type.Optional(Type.String({ maxLength: 60, description: 'Operation credit: the payee\'s first name; wins over payee.first_name, customer.name and a card_token\'s holder.' })),
  payee_last_name: Type.Optional(Type.String({ maxLength: 60, description: 'Operation credit: the payee\'s last name (as payee_first_name).' })),
  payee: Type.Optional(Type.Record(Type.String(), Type.Unknown(), { description: 'Operation credit: the payee; first_name, last_name, email, phone and birth_date (strings) reach the payout, over customer.' })),
  payee_billing_address: Type.Optional(Type.Record(Type.String(), Type.Unknown(), { description: 'Operation credit: the payee\'s address (country, state, city, address, zip, phone, district, house_number), over billing_address.' })),
  accountId: Type.Optional(Type.String({ maxLength: 255 })),
  hash: Hash,
});
export type SessionRequest = Static<typeof SessionRequest>;

export const SessionResponse = Type.Object({
  redirect_url: Type.String(),
  warnings: Type.Optional(Type.Array(Type.String(), { description: 'Requested methods the gateway does not serve, skipped ("methods[1]: naps is not available and was skipped.").' })),
});

const Size = Type.Union([Type.Integer(), Type.String({ pattern: '^-?[0-9]+$' })], { errorMessage: 'size should be within 1..100' });

const PaymentId = Type.String({ minLength: 1, maxLength: 64 });
const OrderId = Type.String({ minLength: 1, maxLength: 255 });
/** What a request about one payment starts with: the merchant and the payment (it ends with the hash). */
const paymentRef = { merchant_key: MerchantKey, payment_id: PaymentId };

export const StatusRequest = Type.Union([
  Type.Object({ ...paymentRef, hash: Hash }),
  Type.Object({ merchant_key: MerchantKey, order_id: OrderId, size: Type.Optional(Size), hash: Hash }),
]);

/** Looser shape used for validation, so that errors name the missing field rather than the union. */
export const StatusRequestShape = Type.Object({
  merchant_key: MerchantKey,
  payment_id: Type.Optional(PaymentId),
  order_id: Type.Optional(OrderId),
  size: Type.Optional(Size),
  hash: Hash,
});
export type StatusRequest = Static<typeof StatusRequestShape>;

export const AmountRequest = Type.Object({ ...paymentRef, amount: Type.Optional(AmountText), hash: Hash });
export type AmountRequest = Static<typeof AmountRequest>;

export const PaymentIdRequest = Type.Object({ ...paymentRef, hash: Hash });
export type PaymentIdRequest = Static<typeof PaymentIdRequest>;

// --- hosted payment fields and card credit (wire-reference 2.1) -------------------------------------------

const Currency = Type.String({ pattern: '^[A-Z]{3,6}$' });
const Description = Type.String({ minLength: 2, maxLength: 1024 });

/** `POST /api/v1/session/token`: the session body; return_url is mandatory, the payer URLs optional, card methods only. */
export const SessionTokenRequest = Type.Object({
  ...SessionRequest.properties,
  operation: Type.Union([Type.Literal('purchase'), Type.Literal('debit')], { errorMessage: 'The value you selected is not a valid choice.' }),
  success_url: Type.Optional(Url),
  cancel_url: Type.Optional(Url),
  return_url: Url,
});
export type SessionTokenRequest = Static<typeof SessionTokenRequest>;

export const SessionTokenResponse = Type.Object({ token: Type.String() });

/** `PUT /api/v1/session/update`: only what changes; flat order_* names and the nested order object both accepted. */
export const SessionUpdateRequest = Type.Object({
  order: Type.Optional(Type.Object({ amount: Type.Optional(AmountText), currency: Type.Optional(Currency), description: Type.Optional(Description) })),
  order_amount: Type.Optional(AmountText),
  order_currency: Type.Optional(Currency),
  order_description: Type.Optional(Description),
  customer: SessionRequest.properties.customer,
  billing_address: SessionRequest.properties.billing_address,
  custom_data: SessionRequest.properties.custom_data,
  /** Only with a change of amount or currency: the merchant's backend signs the new order (session formula). */
  merchant_key: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
  hash: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
});
export type SessionUpdateRequest = Static<typeof SessionUpdateRequest>;

const BrowserValue = Type.Union([Type.String({ maxLength: 2048 }), Type.Number(), Type.Boolean(), Type.Null()], { errorMessage: 'This value is not valid.' });

/** `POST /api/v1/processing/{purchase|debit}/card` (header Token): the card itself came through the hosted fields. */
export const ProcessingRequest = Type.Object({
  name: Type.String({ minLength: 2, maxLength: 32 }),
  with_hosted_fields: Type.Optional(Type.Union([Type.Literal(true), Type.Literal('true'), Type.Literal('Y'), Type.Literal(1)], { errorMessage: 'This value should be true.' })),
  email: Type.Optional(Type.String({ minLength: 2, maxLength: 255, format: 'email' })),
  billing_address: SessionRequest.properties.billing_address,
  browser_info: Type.Optional(Type.Record(Type.String(), BrowserValue, { maxProperties: 32 })),
  birth_day: Type.Optional(Type.String({ format: 'date' })),
  selected_language: Type.Optional(Type.String({ minLength: 2, maxLength: 16, pattern: '^[A-Za-z]{2,3}([_-][A-Za-z0-9]{2,8})*$' })),
});
export type ProcessingRequest = Static<typeof ProcessingRequest>;

export const ProcessingResponse = Type.Object({
  result: Type.Union(['success', 'decline', 'redirect', 'waiting', 'undefined'].map((v) => Type.Literal(v))),
  redirect_url: Type.Optional(Type.String()),
  redirect_params: Type.Optional(Type.Record(Type.String(), Type.String())),
  redirect_method: Type.Optional(Type.String()),
  return_url_query_params: Type.Optional(Type.Record(Type.String(), Type.String())),
  decline_message: Type.Optional(Type.String()),
  public_id: Type.String(),
});

/** What the card field frame posts to the gateway (never through the merchant's page). */
export const CollectRequest = Type.Object({
  card_number: Type.String({ minLength: 1, maxLength: 32 }),
  card_expiry: Type.String({ minLength: 1, maxLength: 16 }),
  card_cvv: Type.String({ minLength: 1, maxLength: 8 }),
  browser: Type.Optional(Type.Record(Type.String(), BrowserValue, { maxProperties: 16 })),
  device_id: Type.Optional(Type.String({ pattern: DEVICE_ID_PATTERN, description: 'The payer\'s device id the card frame keeps (risk engine: device velocity and lists).' })),
});
export type CollectRequest = Static<typeof CollectRequest>;

/** `POST /api/v1/payment/card/credit`: a payout to a card sent in full or named by card_token. */
export const CardCreditRequest = Type.Object({
  merchant_key: MerchantKey,
  order_id: OrderNumber,
  order_amount: AmountText,
  order_currency: Currency,
  order_description: Description,
  card_number: Type.Optional(Type.String({ pattern: '^[0-9]{13,19}$' })),
  card_token: Type.Optional(Type.String({ minLength: 64, maxLength: 64 })),
  payee_first_name: Type.Optional(Type.String({ minLength: 1, maxLength: 32 })),
  payee_last_name: Type.Optional(Type.String({ minLength: 1, maxLength: 32 })),
  payee_email: Type.Optional(Type.String({ minLength: 2, maxLength: 255, format: 'email' })),
  payee_ip: Type.Optional(Type.String({ format: 'ip' })),
  custom_data: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
  hash: Hash,
});
export type CardCreditRequest = Static<typeof CardCreditRequest>;

export const CardCreditResponse = Type.Object({ payment_id: Type.String(), result: Type.Literal('accepted') });

// --- answers (OpenAPI only: the routes build their bodies themselves; these schemas never serialize) ----------

const Status = Type.Union(['prepare', 'settled', 'pending', '3ds', 'redirect', 'decline', 'refund', 'reversal', 'void', 'chargeback'].map((v) => Type.Literal(v)));
const WireDate = Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2}:\\d{2}$', description: 'YYYY-MM-DD hh:mm:ss, UTC' });
const OrderAnswer = Type.Object({ number: Type.String(), amount: Type.String(), currency: Type.String(), description: Type.String() });

export const StatusAnswer = Type.Object({
  payment_id: Type.String(),
  date: WireDate,
  status: Status,
  reason: Type.Optional(Type.String({ description: 'decline reason' })),
  recurring_token: Type.Optional(Type.String()),
  schedule_id: Type.Optional(Type.String()),
  shedule_id: Type.Optional(Type.String({ description: 'the documented misspelling of schedule_id, for old parsers' })),
  first_recurring_date: Type.Optional(Type.String()),
  order: OrderAnswer,
  customer: Type.Optional(Type.Object({ name: Type.Optional(Type.String()), email: Type.Optional(Type.String()) })),
  card: Type.Optional(Type.String({ description: 'masked, when enabled in Protocol Mapping' })),
  card_expiration_date: Type.Optional(Type.String()),
}, { additionalProperties: true, description: 'Optional fields enabled in Protocol Mapping may follow.' });

export const CaptureAnswer = Type.Object({
  payment_id: Type.String(),
  status: Status,
  trans_status: Type.Union([Type.Literal('SUCCESS'), Type.Literal('DECLINED'), Type.Literal('UNDEFINED')]),
  date: WireDate,
  reason: Type.Optional(Type.String()),
});

export const AcceptedAnswer = Type.Object({ payment_id: Type.String(), result: Type.Literal('accepted') }, { description: 'Taken; the outcome comes by callback.' });

export const VoidAnswer = Type.Object({
  status: Type.Union([Type.Literal('SUCCESS'), Type.Literal('FAIL')]),
  payment_status: Status,
  payment_id: Type.String(),
  date: WireDate,
  order: OrderAnswer,
  reason: Type.Optional(Type.String()),
});

export const RecurringAnswer = Type.Object({
  payment_id: Type.String(),
  status: Status,
  date: WireDate,
  reason: Type.Optional(Type.String()),
  recurring_token: Type.Optional(Type.String()),
  schedule_id: Type.Optional(Type.String()),
  order: OrderAnswer,
}, { additionalProperties: true });

export const SessionUpdateAnswer = Type.Object({ result: Type.Literal('success') });
