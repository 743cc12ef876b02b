/**
 * S2S CARD request schemas, one per action, to the limits of wire-reference 7.3 and the platform's field
 * tables. Form values are strings; an empty value counts as not sent (routes drop them before validation),
 * so a required field sent empty answers "This value should not be blank.". Unknown fields are ignored.
 */
import { Type, type Static, type TProperties } from '@sinclair/typebox';
import { MESSAGES } from '../../domain/errors.ts';
import { Amount, answeredAmount, answeredPayment, base, Currency, Email, FreeForm, Ip, optional, person, text, Url } from '../s2s-fields.ts';

const YesNo = Type.Optional(Type.String({ pattern: '^[YN]$', errorMessage: MESSAGES.notChoice }));

/** Card data: required unless a card_token names a stored card (checked by the action's rules). */
const card = {
  card_number: Type.Optional(Type.String({ pattern: '^[0-9]{13,19}$', errorMessage: MESSAGES.notLuhn })),
  card_exp_month: Type.Optional(Type.String({ pattern: '^(0?[1-9]|1[0-2])$', errorMessage: MESSAGES.notValid })),
  card_exp_year: Type.Optional(Type.String({ pattern: '^[0-9]{4}$', errorMessage: MESSAGES.notValid })),
  card_cvv2: Type.Optional(Type.String({ pattern: '^[0-9]{3,4}$', errorMessage: MESSAGES.notValid })),
  card_token: optional(64),
};

const order = {
  channel_id: optional(16),
  order_id: text(255),
  order_amount: Amount,
  order_currency: Currency,
  order_description: text(1024),
};

/** payer_* fields, all optional here; each action's rules and the merchant's Protocol Mapping require some. */
const payer = person('payer', [
  'first_name', 'last_name', 'middle_name', 'birth_date', 'address', 'address2', 'house_number', 'country', 'state', 'city', 'district', 'zip',
  'email', 'phone', 'phone_country_code', 'ip',
]);

/** payee_* fields of a CREDIT2CARD (its city up to 32 characters). */
const payee = {
  ...person('payee', ['first_name', 'last_name', 'middle_name', 'birth_date', 'address', 'address2', 'country', 'state', 'city', 'zip', 'email', 'phone']),
  payee_city: optional(32),
};

const Integer = (digits: number) => Type.Optional(Type.String({ pattern: `^-?[0-9]{1,${digits}}$`, errorMessage: MESSAGES.notValid }));
const BrowserFlag = Type.Optional(Type.String({ pattern: '^(true|false|Y|N|1|0)$', errorMessage: MESSAGES.notChoice }));

/** The payer's browser (the platform's browser_* fields): forwarded to the connector, returned where Protocol Mapping says. */
export const browser = {
  browser_color_depth: Integer(2),
  browser_screen_height: Integer(6),
  browser_screen_width: Integer(6),
  browser_java_enabled: BrowserFlag,
  browser_javascript_enabled: BrowserFlag,
  browser_language: Type.Optional(Type.String({ maxLength: 35, pattern: '^[A-Za-z]{1,8}(-[A-Za-z0-9]{1,8})*$', errorMessage: MESSAGES.notValid })),
  browser_timezone_offset: Integer(4),
  browser_user_agent: optional(2048),
  browser_accept_headers: optional(2048),
  browser_platform: optional(64),
};

const extras = {
  parameters: Type.Optional(FreeForm),
  custom_data: Type.Optional(FreeForm),
  callback_url: Type.Optional(Url(255)),
};

const schema = <P extends TProperties>(properties: P) => Type.Object({ ...base, ...properties });

/** What SALE and DEBIT share. */
const cardPayment = {
  ...order,
  ...card,
  ...payer,
  ...browser,
  ...extras,
  term_url_3ds: Url(1024),
  term_url_target: optional(1024),
  req_token: YesNo,
  recurring_init: YesNo,
  payer_present: YesNo,
  schedule_id: optional(255),
  schedule_start_date: Type.Optional(Type.String({ format: 'date' })),
  payment_schedule_amount: Type.Optional(Amount),
};

/** SALE: the payer's name, e-mail, phone and IP are required; address, country, city, zip only by Protocol Mapping. */
export const SaleRequest = schema({
  ...cardPayment,
  auth: YesNo,
  /** A wallet SALE (F8): the payer's Apple Pay or Google Pay token instead of card data. */
  digital_wallet: Type.Optional(Type.String({ pattern: '^(applepay|googlepay)$', errorMessage: MESSAGES.notChoice })),
  payment_token: Type.Optional(Type.String({ minLength: 1, maxLength: 65536 })),
  payer_first_name: text(32),
  payer_last_name: text(32),
  payer_email: Email,
  payer_phone: text(32),
  payer_ip: Ip,
});
export type SaleRequest = Static<typeof SaleRequest>;

/** DEBIT: as SALE without auth; of the payer only the IP is required (city up to 32 characters). */
export const DebitRequest = schema({ ...cardPayment, payer_ip: Ip, payer_city: optional(32) });
export type DebitRequest = Static<typeof DebitRequest>;

export const Credit2CardRequest = schema({
  ...order,
  card_number: card.card_number,
  card_token: card.card_token,
  ...payee,
  ...payer,
  ...extras,
});
export type Credit2CardRequest = Static<typeof Credit2CardRequest>;

export const TransRequest = schema({ trans_id: text(255) });
export type TransRequest = Static<typeof TransRequest>;

export const AmountTransRequest = schema({ trans_id: text(255), amount: Type.Optional(Amount) });
export type AmountTransRequest = Static<typeof AmountTransRequest>;

export const OrderRequest = schema({ order_id: text(255) });
export type OrderRequest = Static<typeof OrderRequest>;

/**
 * RECURRING_SALE and RECURRING_DEBIT: a charge on a chain, named by its first payment and recurring_token (no
 * card). The chain's currency is charged; an order_currency sent must be it.
 */
const recurringCharge = {
  order_id: text(255),
  order_amount: Amount,
  order_currency: Type.Optional(Currency),
  order_description: text(1024),
  recurring_first_trans_id: text(255),
  recurring_token: text(255),
  schedule_id: optional(255),
  custom_data: extras.custom_data,
  callback_url: extras.callback_url,
};
export const RecurringSaleRequest = schema({ ...recurringCharge, auth: YesNo });
export type RecurringSaleRequest = Static<typeof RecurringSaleRequest>;
export const RecurringDebitRequest = schema(recurringCharge);
export type RecurringDebitRequest = Static<typeof RecurringDebitRequest>;

/**
 * The schedule parameters (wire-reference 7.3): all optional here, numbers as form text. Which are required,
 * and their ranges, are the schedule's own rules (services/schedules/schedule-fields.ts), so that CREATE and
 * UPDATE (which changes only what is sent) read them alike. delays is accepted only to be refused.
 */
const scheduleParameters = {
  name: optional(100),
  interval_length: optional(16),
  interval_unit: optional(16),
  day_of_month: optional(16),
  payments_count: optional(16),
  delayed_first_payment: optional(32),
  first_payment_interval_length: optional(16),
  first_payment_interval_unit: optional(16),
  first_payment_day_of_week: optional(16),
  first_payment_day_of_month: optional(16),
  delays: optional(16),
};
export const CreateScheduleRequest = schema(scheduleParameters);
export type CreateScheduleRequest = Static<typeof CreateScheduleRequest>;
export const UpdateScheduleRequest = schema({ schedule_id: text(255), ...scheduleParameters });
export type UpdateScheduleRequest = Static<typeof UpdateScheduleRequest>;
export const ScheduleIdRequest = schema({ schedule_id: text(255) });
export type ScheduleIdRequest = Static<typeof ScheduleIdRequest>;
export const DescheduleRequest = schema({ schedule_id: text(255), recurring_token: text(255) });
export type DescheduleRequest = Static<typeof DescheduleRequest>;

/** What every action needs before its own schema is known. */
export const ActionOnly = Type.Object({ action: Type.String({ minLength: 1, maxLength: 64 }) });

// --- answers (OpenAPI only: actions build their bodies themselves; these schemas never serialize) -------------

const Result = (...values: string[]) => Type.Union(values.map((v) => Type.Literal(v)));
const S2sStatus = Result('PREPARE', '3DS', 'REDIRECT', 'PENDING', 'SETTLED', 'DECLINED', 'REFUND', 'REVERSAL', 'VOID', 'CHARGEBACK');
const WireDate = Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2}:\\d{2}$' });

/** SALE, DEBIT, CREDIT2CARD, RECURRING_SALE, RECURRING_DEBIT. */
export const PaymentAnswer = Type.Object({
  action: Type.String(),
  result: Result('SUCCESS', 'DECLINED', 'REDIRECT', 'UNDEFINED'),
  status: S2sStatus,
  ...answeredPayment,
  trans_date: WireDate,
  descriptor: Type.String(),
  recurring_token: Type.Optional(Type.String()),
  schedule_id: Type.Optional(Type.String()),
  first_recurring_date: Type.Optional(Type.String()),
  card_token: Type.Optional(Type.String({ description: 'with req_token=Y' })),
  ...answeredAmount,
  redirect_url: Type.Optional(Type.String({ description: '3-D Secure or provider page' })),
  redirect_params: Type.Optional(Type.Union([Type.Record(Type.String(), Type.String()), Type.Array(Type.Object({ name: Type.String(), value: Type.String() }))], { description: 'an object on /post; a [{name, value}] list on /v2/post; [] when empty' })),
  redirect_method: Type.Optional(Result('POST', 'GET')),
}, { title: 'Payment answer' });

export const FollowUpAnswer = Type.Object({
  action: Result('CAPTURE', 'VOID'),
  result: Result('SUCCESS', 'DECLINED', 'UNDEFINED'),
  status: S2sStatus,
  ...answeredPayment,
  trans_date: WireDate,
  descriptor: Type.Optional(Type.String()),
  ...answeredAmount,
}, { title: 'CAPTURE or VOID answer' });

export const AcceptedAnswer = Type.Object({ action: Type.String(), result: Type.Literal('ACCEPTED'), ...answeredPayment }, { title: 'CREDITVOID or RETRY answer (outcome by callback)' });

export const StatusAnswer = Type.Object({
  action: Type.String(),
  result: Type.Literal('SUCCESS'),
  status: S2sStatus,
  ...answeredPayment,
  decline_reason: Type.Optional(Type.String()),
  recurring_token: Type.Optional(Type.String()),
  schedule_id: Type.Optional(Type.String()),
  shedule_id: Type.Optional(Type.String()),
  card: Type.Optional(Type.String()),
}, { title: 'GET_TRANS_STATUS answer', additionalProperties: true });

export const DetailsAnswer = Type.Object({
  ...StatusAnswer.properties,
  name: Type.Optional(Type.String()),
  mail: Type.Optional(Type.String()),
  ip: Type.Optional(Type.String()),
  amount: Type.String(),
  currency: Type.String(),
  transactions: Type.Array(Type.Object({ date: WireDate, type: Type.String(), status: Type.String(), amount: Type.String() })),
}, { title: 'GET_TRANS_DETAILS answer', additionalProperties: true });

export const ScheduleAnswer = Type.Object({ action: Type.String(), result: Type.Literal('SUCCESS'), schedule_id: Type.Optional(Type.String()) }, { title: 'Schedule action answer' });

export const ScheduleInfoAnswer = Type.Object({
  action: Type.Literal('SCHEDULE_INFO'),
  result: Type.Literal('SUCCESS'),
  schedule_id: Type.String(),
  name: Type.String(),
  interval_length: Type.Integer(),
  interval_unit: Type.String(),
  day_of_month: Type.Union([Type.Integer(), Type.Null()]),
  payments_count: Type.Integer(),
  delays: Type.Null(),
  paused: Result('Y', 'N'),
  delayed_first_payment: Type.String(),
}, { title: 'SCHEDULE_INFO answer', additionalProperties: true });
